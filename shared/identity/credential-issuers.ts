import {
  AddUserPoolClientSecretCommand,
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  DeleteUserPoolClientCommand,
  DeleteUserPoolClientSecretCommand,
  ListUserPoolClientSecretsCommand,
  ResourceNotFoundException,
  type ClientSecretDescriptorType,
} from '@aws-sdk/client-cognito-identity-provider';
import { traced } from '../platform/tracer';
import { generateClientId, generateClientSecret, hashSecret } from './client-secrets';
import type { Scope } from './scopes';

/** Issued credentials; secretHash is set where this service verifies secrets itself. */
export interface IssuedCredentials {
  clientId: string;
  clientSecret: string;
  secretHash?: string;
}

/** Where OAuth client credentials live: the local identity provider, or Cognito on AWS. */
export interface CredentialIssuer {
  create(name: string, scopes: readonly Scope[]): Promise<IssuedCredentials>;
  /**
   * A new secret. Where the issuer keeps the secrets (Cognito), the old ones can no longer get a
   * token when this returns, and `oldSecretsEndedBy` is a moment no earlier than that by the token
   * issuer's clock (their `iat`), which runs at least `issuerClockOffsetMs` ahead of this one (a
   * negative offset: behind). Where this service verifies secrets (`secretHash`), the old one ends
   * when the caller stores the new hash.
   */
  rotate(clientId: string): Promise<Omit<IssuedCredentials, 'clientId'> & { oldSecretsEndedBy?: string; issuerClockOffsetMs?: number }>;
  /** No token can be had for the client any more. */
  revoke(clientId: string): Promise<void>;
}

/** The local identity provider verifies secrets against the hash kept in the client registry. */
export const localCredentialIssuer: CredentialIssuer = {
  async create() {
    const clientSecret = generateClientSecret();
    return { clientId: generateClientId(), clientSecret, secretHash: await hashSecret(clientSecret) };
  },
  async rotate() {
    const clientSecret = generateClientSecret();
    // The old secret works until the caller stores this hash: the caller dates the rotation after that.
    return { clientSecret, secretHash: await hashSecret(clientSecret) };
  },
  // The registry entry is revoked and its hash dropped by the caller; nothing else holds the secret.
  async revoke() {},
};

/** Cognito app clients with the client-credentials grant; scopes carry the resource server's prefix. */
export const cognitoCredentialIssuer = (userPoolId: string, scopePrefix: string, region?: string): CredentialIssuer => {
  const cognito = traced(new CognitoIdentityProviderClient({ region }));
  return {
    async create(name, scopes) {
      const { UserPoolClient } = await cognito.send(
        new CreateUserPoolClientCommand({
          UserPoolId: userPoolId,
          ClientName: name,
          GenerateSecret: true,
          AllowedOAuthFlows: ['client_credentials'],
          AllowedOAuthFlowsUserPoolClient: true,
          AllowedOAuthScopes: scopes.map((scope) => `${scopePrefix}${scope}`),
          SupportedIdentityProviders: ['COGNITO'],
          // Client credentials only: no user sign-in flow (without the list Cognito allows SRP and custom auth).
          ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
        }),
      );
      return { clientId: UserPoolClient!.ClientId!, clientSecret: UserPoolClient!.ClientSecret! };
    },
    // Deletes only the secrets older than the one it added: of overlapping rotations the newest
    // secret stays, never none. The old secrets can get tokens until their deletes have returned,
    // so the rotation is dated after those by Cognito's clock (the tokens' iat), whatever its
    // offset from this one: Cognito's time then is at most the new secret's creation time plus the
    // time elapsed here since the secret was asked for. Cognito's clock runs at least (creation
    // time - the moment the add returned here) ahead of this one.
    async rotate(clientId) {
      const asked = Date.now();
      const { ClientSecretDescriptor } = await cognito.send(new AddUserPoolClientSecretCommand({ UserPoolId: userPoolId, ClientId: clientId }));
      const addReturned = Date.now();
      const { ClientSecrets = [] } = await cognito.send(new ListUserPoolClientSecretsCommand({ UserPoolId: userPoolId, ClientId: clientId }));
      const added = ClientSecrets.find((secret) => secret.ClientSecretId === ClientSecretDescriptor!.ClientSecretId) ?? ClientSecretDescriptor!;
      for (const secret of ClientSecrets) {
        if (!olderSecret(secret, added)) continue;
        try {
          await cognito.send(new DeleteUserPoolClientSecretCommand({ UserPoolId: userPoolId, ClientId: clientId, ClientSecretId: secret.ClientSecretId }));
        } catch (error) {
          if (!(error instanceof ResourceNotFoundException)) throw error; // deleted by an overlapping rotation
        }
      }
      const created = added.ClientSecretCreateDate!.getTime();
      // A second more: should Cognito give creation times in whole seconds, still no earlier than the end.
      const oldSecretsEndedBy = new Date(created + (Date.now() - asked) + 1000);
      return { clientSecret: ClientSecretDescriptor!.ClientSecretValue!, oldSecretsEndedBy: oldSecretsEndedBy.toISOString(), issuerClockOffsetMs: created - addReturned };
    },
    async revoke(clientId) {
      try {
        await cognito.send(new DeleteUserPoolClientCommand({ UserPoolId: userPoolId, ClientId: clientId }));
      } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error; // deleted already (a re-run): revoked
      }
    },
  };
};

/** Whether `secret` was created before `than` (by creation time, then id: one order for all rotations). */
const olderSecret = (secret: ClientSecretDescriptorType, than: ClientSecretDescriptorType): boolean => {
  if (!than.ClientSecretCreateDate) throw new Error('Cognito returned a client secret without its creation time');
  const created = secret.ClientSecretCreateDate?.getTime() ?? 0;
  const thanCreated = than.ClientSecretCreateDate.getTime();
  if (created !== thanCreated) return created < thanCreated;
  return (secret.ClientSecretId ?? '') < (than.ClientSecretId ?? '');
};
