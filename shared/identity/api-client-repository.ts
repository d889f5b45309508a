import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '../db/query-all';
import { updateItem } from '../db/update';
import { dynamo, tableName } from '../platform/aws';
import { apiClientKeys, apiClientListKeys, apiClientListPartition } from './keys';
import type { PrincipalMode, RateLimit, RatePlan } from './principal';
import type { Scope } from './scopes';

/** The client registry: what an OAuth client may do and whose it is. */
export interface ApiClient {
  clientId: string;
  name: string;
  organizationId: string;
  /**
   * The organization's path (paths never change), so the authorizer reads one item per request.
   * Absent on clients created before it was kept; the authorizer then reads the organization.
   */
  organizationPath?: string;
  mode: PrincipalMode;
  /** USER: the person the client acts for (reach: that person's effective access). */
  userId?: string;
  scopes: Scope[];
  plan: RatePlan;
  /** A custom limit in place of the plan's (an operator's setting, e.g. for an integrator's bulk loads). */
  rateLimit?: RateLimit;
  status: 'active' | 'revoked';
  createdAt: string;
  rotatedAt?: string;
  /** Hash of the secret, kept only where this service is the token issuer (the local identity provider). */
  secretHash?: string;
}

export const apiClientRepository = {
  async get(clientId: string): Promise<ApiClient | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: apiClientKeys(clientId) }));
    return Item ? toApiClient(Item) : undefined;
  },

  async create(client: ApiClient): Promise<void> {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...apiClientKeys(client.clientId),
          ...apiClientListKeys(client.organizationId, client.clientId),
          entity: 'apiClient',
          ...client,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  },

  /**
   * Takes the client's rotation for one caller (`token`) until `until` (ms): false while another
   * rotation holds it, or when the client is not active. Rotations of one client so run one at a
   * time: Cognito's add-then-delete of secrets is not safe to overlap.
   */
  async claimRotation(clientId: string, token: string, now: number, until: number): Promise<boolean> {
    return updateItem(apiClientKeys(clientId), { rotationClaim: { token, until } }, [], {
      expression: '#status = :active AND (attribute_not_exists(rotationClaim) OR rotationClaim.#until < :now)',
      names: { '#status': 'status', '#until': 'until' },
      values: { ':active': 'active', ':now': now },
    });
  },

  /** Gives up a rotation claim (a rotation that failed); nothing if another holds it. */
  async releaseRotation(clientId: string, token: string): Promise<void> {
    await updateItem(apiClientKeys(clientId), {}, ['rotationClaim'], { expression: 'rotationClaim.#token = :token', names: { '#token': 'token' }, values: { ':token': token } });
  },

  /**
   * Records a rotation if the client is still active, its claim is this rotation's, and it was not
   * rotated since `previousRotatedAt` (undefined: never rotated); the claim stays (the rotation
   * releases it once it has handed the secret out). With
   * `secretHash` (the local issuer) the new secret's hash is stored in the same update: from then
   * on only the new secret gets a token. False otherwise (a revoked client keeps no secret hash).
   */
  async recordRotation(clientId: string, rotation: { rotatedAt: string; previousRotatedAt: string | undefined; claim: string; secretHash?: string }): Promise<boolean> {
    const { rotatedAt, previousRotatedAt, claim, secretHash } = rotation;
    return updateItem(apiClientKeys(clientId), { rotatedAt, ...(secretHash && { secretHash }) }, [], {
      expression: `#status = :active AND rotationClaim.#token = :claim AND ${previousRotatedAt ? 'rotatedAt = :previous' : 'attribute_not_exists(rotatedAt)'}`,
      names: { '#status': 'status', '#token': 'token' },
      values: { ':active': 'active', ':claim': claim, ...(previousRotatedAt && { ':previous': previousRotatedAt }) },
    });
  },

  /** Dates a recorded rotation later (it may only move later), while it is still dated `rotatedAt`. */
  async redateRotation(clientId: string, rotatedAt: string, later: string): Promise<boolean> {
    return updateItem(apiClientKeys(clientId), { rotatedAt: later }, [], { expression: 'rotatedAt = :recorded', names: {}, values: { ':recorded': rotatedAt } });
  },

  async revoke(clientId: string, revokedAt: string): Promise<void> {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: apiClientKeys(clientId),
        UpdateExpression: 'SET #status = :revoked, revokedAt = :at REMOVE secretHash',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':revoked': 'revoked', ':at': revokedAt },
      }),
    );
  },

  async listByOrganization(organizationId: string): Promise<ApiClient[]> {
    const items = await queryAll({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': apiClientListPartition(organizationId) },
    });
    return items.map(toApiClient);
  },
};

const toApiClient = (item: Record<string, unknown>): ApiClient => ({
  clientId: item.clientId as string,
  name: item.name as string,
  organizationId: item.organizationId as string,
  ...(typeof item.organizationPath === 'string' ? { organizationPath: item.organizationPath } : {}),
  mode: item.mode as PrincipalMode,
  ...(typeof item.userId === 'string' ? { userId: item.userId } : {}),
  scopes: item.scopes as Scope[],
  plan: item.plan as RatePlan,
  ...(item.rateLimit ? { rateLimit: item.rateLimit as RateLimit } : {}),
  status: item.status as ApiClient['status'],
  createdAt: item.createdAt as string,
  ...(item.rotatedAt ? { rotatedAt: item.rotatedAt as string } : {}),
  ...(item.secretHash ? { secretHash: item.secretHash as string } : {}),
});
