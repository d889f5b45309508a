import { createApiClient, type CreateClientInput } from '../../shared/administration/service';
import { localCredentialIssuer, type CredentialIssuer } from '../../shared/identity/credential-issuers';
import type { RateLimit } from '../../shared/identity/principal';

/**
 * The custom rate limit of the suite's clients (seeded and created by tests): the files share the
 * stack and send as fast as the machine lets them, so no plan's limit holds for them without
 * making a result depend on the machine's speed. The rate-limit tests create their clients with
 * createApiClient and the plans' limits, so the rule itself is still proven.
 */
export const suiteRateLimit: RateLimit = { perMinute: 600_000, burst: 100_000 };

/** An API client for a test, under the suite's rate limit. */
export const createTestClient = (input: CreateClientInput, issuer: CredentialIssuer = localCredentialIssuer) =>
  createApiClient({ rateLimit: suiteRateLimit, ...input }, issuer);
