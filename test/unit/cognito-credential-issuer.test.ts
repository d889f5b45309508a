import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AddUserPoolClientSecretCommand,
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
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
const fakeCognito = (log: { lastDeleteEndedAt?: number } = {}) => {
  const secrets: ClientSecretDescriptorType[] = [{ ClientSecretId: 'client--1000', ClientSecretValue: 'first', ClientSecretCreateDate: new Date(1_000_000) }];
  let clock = 2000;
  vi.spyOn(CognitoIdentityProviderClient.prototype, 'send').mockImplementation((async (command: unknown) => {
    await new Promise((resolve) => setImmediate(resolve));
    if (command instanceof AddUserPoolClientSecretCommand) {
      clock++;
      // Cognito's clock is this one's here; each secret a millisecond after the last.
      const secret = { ClientSecretId: `client--${clock}`, ClientSecretValue: `secret-${clock}`, ClientSecretCreateDate: new Date(Date.now() + clock) };
      secrets.push(secret);
      return { ClientSecretDescriptor: secret };
    }
    if (command instanceof ListUserPoolClientSecretsCommand) return { ClientSecrets: secrets.map(({ ClientSecretValue: _value, ...secret }) => secret) };
    if (command instanceof DeleteUserPoolClientSecretCommand) {
      const at = secrets.findIndex((secret) => secret.ClientSecretId === command.input.ClientSecretId);
      if (at < 0) throw new ResourceNotFoundException({ message: 'No such client secret', $metadata: {} });
      secrets.splice(at, 1);
      log.lastDeleteEndedAt = Date.now();
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
  it('leaves only the new secret, and says the old ones ended no earlier than their deletes returned (not when the new one was added)', async () => {
    const log: { lastDeleteEndedAt?: number } = {};
    const secrets = fakeCognito(log);
    const { clientSecret, oldSecretsEndedBy } = await cognitoCredentialIssuer('pool', 'ledger-api/', 'eu-north-1').rotate('client');
    expect(secrets.map((secret) => secret.ClientSecretValue)).toEqual([clientSecret]);
    // Until the delete, the old secret still got tokens: a date before it would let those pass.
    expect(log.lastDeleteEndedAt).toBeDefined();
    expect(Date.parse(oldSecretsEndedBy!)).toBeGreaterThanOrEqual(log.lastDeleteEndedAt!);
  });

  it.each([
    ['ahead of', 60_000],
    ['behind', -60_000],
  ])("with a Cognito clock %s this one, dates by Cognito's (the new secret's creation time plus the time the rotation took since) and says how far ahead it runs at least", async (_, offset) => {
    const started = Date.now();
    const ahead = started + offset;
    vi.spyOn(CognitoIdentityProviderClient.prototype, 'send').mockImplementation((async (command: unknown) => {
      const secret = { ClientSecretId: 'client--new', ClientSecretValue: 'new', ClientSecretCreateDate: new Date(ahead) };
      if (command instanceof AddUserPoolClientSecretCommand) return { ClientSecretDescriptor: secret };
      if (command instanceof ListUserPoolClientSecretsCommand) return { ClientSecrets: [secret] };
      throw new Error('unexpected command');
    }) as never);
    const { oldSecretsEndedBy, issuerClockOffsetMs } = await cognitoCredentialIssuer('pool', 'ledger-api/', 'eu-north-1').rotate('client');
    const took = Date.now() - started;
    expect(Date.parse(oldSecretsEndedBy!)).toBeGreaterThanOrEqual(ahead);
    expect(Date.parse(oldSecretsEndedBy!)).toBeLessThanOrEqual(ahead + took + 1000);
    // A lower bound of the offset: never more than it is, so the secret is not handed out before its tokens pass.
    expect(issuerClockOffsetMs!).toBeLessThanOrEqual(offset);
    expect(issuerClockOffsetMs!).toBeGreaterThanOrEqual(offset - took);
  });

  it('of two overlapping rotations keeps the newer secret, never none', async () => {
    const secrets = fakeCognito();
    const issuer = cognitoCredentialIssuer('pool', 'ledger-api/', 'eu-north-1');
    const [first, second] = await Promise.all([issuer.rotate('client'), issuer.rotate('client')]);
    expect(first.clientSecret).not.toBe(second.clientSecret);
    expect(secrets.map((secret) => secret.ClientSecretValue)).toEqual([second.clientSecret]);
  });
});

describe('Cognito credential issuer: creation', () => {
  it('creates a client-credentials app client that allows no user sign-in flow (ExplicitAuthFlows: refresh only)', async () => {
    const send = vi.spyOn(CognitoIdentityProviderClient.prototype, 'send').mockImplementation((async (command: unknown) => {
      if (!(command instanceof CreateUserPoolClientCommand)) throw new Error('unexpected command');
      return { UserPoolClient: { ClientId: 'new-client', ClientSecret: 'new-secret' } };
    }) as never);
    const credentials = await cognitoCredentialIssuer('pool', 'ledger-api/', 'eu-north-1').create('integration', ['companies:read']);
    expect(credentials).toEqual({ clientId: 'new-client', clientSecret: 'new-secret' });
    const { input } = send.mock.calls[0]![0] as CreateUserPoolClientCommand;
    // Without the list, Cognito allows USER_SRP_AUTH and CUSTOM_AUTH: a person's password could sign in through it.
    expect(input).toMatchObject({ AllowedOAuthFlows: ['client_credentials'], AllowedOAuthScopes: ['ledger-api/companies:read'], ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'] });
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
