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
   * A new secret; the old one stops working at once. rotatedAt is by the clock of whoever issues the
   * tokens (their `iat`), so tokens of the new secret are never taken for tokens of the old one.
   */
  rotate(clientId: string): Promise<Omit<IssuedCredentials, 'clientId'> & { rotatedAt: string }>;
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
    return { clientSecret, secretHash: await hashSecret(clientSecret), rotatedAt: new Date().toISOString() };
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
        }),
      );
      return { clientId: UserPoolClient!.ClientId!, clientSecret: UserPoolClient!.ClientSecret! };
    },
    // Deletes only the secrets older than the one it added: of overlapping rotations the newest
    // secret stays, never none.
    async rotate(clientId) {
      const { ClientSecretDescriptor } = await cognito.send(new AddUserPoolClientSecretCommand({ UserPoolId: userPoolId, ClientId: clientId }));
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
      return { clientSecret: ClientSecretDescriptor!.ClientSecretValue!, rotatedAt: added.ClientSecretCreateDate!.toISOString() };
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
