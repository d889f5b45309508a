import type { OperationContract } from '../api/operation';
import { WhoamiSchema } from './schemas';

/** The contract of GET /v1/whoami. */
export const identityContracts = {
  whoami: {
    description: 'Who the access token belongs to: the client, its organization and the scopes it holds. Any valid token may call it; use it to check credentials. Errors: **401** `invalid_token`.',
    responses: { 200: { description: 'The caller', schema: WhoamiSchema } },
  },
} satisfies Record<string, OperationContract>;
