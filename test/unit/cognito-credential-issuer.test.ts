import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AddUserPoolClientSecretCommand,
  CognitoIdentityProviderClient,
  DeleteUserPoolClientCommand,
  DeleteUserPoolClientSecretCommand,
  InternalErrorException,
  ListUserPoolClientSecretsCommand,
  ResourceNotFoundException,
  type ClientSecretDescriptorType,
} from '@aws-sdk/client-cognito-identity-provider';
import { cognitoCredentialIssuer } from '../../shared/identity/credential-issuers';

/**
 * Cognito's client secrets, faked in memory: each call yields first, so two rotations started
 * together interleave call by call (both add, both list, then both delete).
 */
const fakeCognito = () => {
  const secrets: ClientSecretDescriptorType[] = [{ ClientSecretId: 'client--1000', ClientSecretValue: 'first', ClientSecretCreateDate: new Date(1_000_000) }];
  let clock = 2000;
  vi.spyOn(CognitoIdentityProviderClient.prototype, 'send').mockImplementation((async (command: unknown) => {
    await new Promise((resolve) => setImmediate(resolve));
    if (command instanceof AddUserPoolClientSecretCommand) {
      clock++;
      const secret = { ClientSecretId: `client--${clock}`, ClientSecretValue: `secret-${clock}`, ClientSecretCreateDate: new Date(clock * 1000) };
      secrets.push(secret);
      return { ClientSecretDescriptor: secret };
    }
    if (command instanceof ListUserPoolClientSecretsCommand) return { ClientSecrets: secrets.map(({ ClientSecretValue: _value, ...secret }) => secret) };
    if (command instanceof DeleteUserPoolClientSecretCommand) {
      const at = secrets.findIndex((secret) => secret.ClientSecretId === command.input.ClientSecretId);
      if (at < 0) throw new ResourceNotFoundException({ message: 'No such client secret', $metadata: {} });
      secrets.splice(at, 1);
      return {};
    }
    throw new Error('unexpected command');
  }) as never);
  return secrets;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Cognito credential issuer: rotation', () => {
  it("leaves only the new secret, and dates the rotation by Cognito's clock (the clock of the tokens' iat)", async () => {
    const secrets = fakeCognito();
    const { clientSecret, rotatedAt } = await cognitoCredentialIssuer('pool', 'ledger-api/', 'eu-north-1').rotate('client');
    expect(secrets.map((secret) => secret.ClientSecretValue)).toEqual([clientSecret]);
    expect(rotatedAt).toBe(new Date(2001 * 1000).toISOString());
  });

  it('of two overlapping rotations keeps the newer secret, never none', async () => {
    const secrets = fakeCognito();
    const issuer = cognitoCredentialIssuer('pool', 'ledger-api/', 'eu-north-1');
    const [first, second] = await Promise.all([issuer.rotate('client'), issuer.rotate('client')]);
    expect(first.clientSecret).not.toBe(second.clientSecret);
    expect(secrets.map((secret) => secret.ClientSecretValue)).toEqual([second.clientSecret]);
  });
});

describe('Cognito credential issuer: revocation', () => {
  /** Cognito's app clients, faked: deleting one that is not there is ResourceNotFoundException. */
  const fakeClients = (clients: Set<string>) =>
    vi.spyOn(CognitoIdentityProviderClient.prototype, 'send').mockImplementation((async (command: unknown) => {
      if (!(command instanceof DeleteUserPoolClientCommand)) throw new Error('unexpected command');
      if (command.input.ClientId === 'throttled') throw new InternalErrorException({ message: 'Try again', $metadata: {} });
      if (!clients.delete(command.input.ClientId!)) throw new ResourceNotFoundException({ message: 'User pool client does not exist.', $metadata: {} });
      return {};
    }) as never);

  it('takes a client deleted already (by a run that stopped at a later step) as revoked, so a re-run gets past it', async () => {
    const clients = new Set(['client']);
    const send = fakeClients(clients);
    const issuer = cognitoCredentialIssuer('pool', 'ledger-api/', 'eu-north-1');
    await issuer.revoke('client');
    await expect(issuer.revoke('client')).resolves.toBeUndefined();
    expect(clients.size).toBe(0);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('still fails on any other error', async () => {
    fakeClients(new Set());
    await expect(cognitoCredentialIssuer('pool', 'ledger-api/', 'eu-north-1').revoke('throttled')).rejects.toBeInstanceOf(InternalErrorException);
  });
});
