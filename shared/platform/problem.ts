import { problemTypeBase } from './config';
import { clip } from './text';

/** One entry of a Problem's `errors` array. `index` is given where the input is an array. */
export interface FieldError {
  index?: number;
  field: string;
  message: string;
}

export interface ProblemDetails {
  status: number;
  /** Machine-readable code clients branch on. */
  error: string;
  title: string;
  detail: string;
  reason?: string;
  errors?: FieldError[];
  jobId?: string;
  inUse?: { id: string; [detail: string]: unknown }[];
  /** unknown_account_codes: the codes missing from the year's chart. */
  accountCodes?: string[];
}

/** Any failure the API answers with a problem document. Throw it from services and handlers. */
export class ProblemError extends Error {
  readonly problem: ProblemDetails;
  readonly headers: Record<string, string>;

  constructor(problem: ProblemDetails, headers: Record<string, string> = {}) {
    super(problem.detail);
    this.name = 'ProblemError';
    this.problem = problem;
    this.headers = headers;
  }
}

const problem = (status: number, error: string, title: string, detail: string, extra: Partial<ProblemDetails> = {}) =>
  new ProblemError({ status, error, title, detail, ...extra });

/** The catalogue of problems the platform raises; domain services add their own through ProblemError. */
export const problems = {
  validation: (detail: string, errors?: FieldError[]) =>
    problem(400, 'validation_failed', 'Validation failed', detail, errors?.length ? { errors: errors.slice(0, 100) } : {}),
  malformedJson: (detail: string) => problem(400, 'malformed_json', 'Malformed JSON body', detail),
  /** A body that is not UTF-8, or a path whose percent-encoding does not decode to UTF-8. */
  invalidEncoding: (detail: string) => problem(400, 'invalid_encoding', 'Invalid encoding', detail),
  unsupportedMediaType: (detail: string) => problem(415, 'unsupported_media_type', 'Unsupported media type', detail),
  invalidCursor: (detail: string) => problem(400, 'invalid_cursor', 'Invalid cursor', detail),
  /**
   * With resourceMetadata (RFC 9728, the MCP endpoint) the challenge names the metadata URL; a
   * request that sent no token gets no error code in it (RFC 6750 section 3.1).
   */
  unauthorized: (detail: string, challenge?: { resourceMetadata: string; tokenSent: boolean }) =>
    new ProblemError(
      { status: 401, error: 'invalid_token', title: 'Unauthorized', detail },
      {
        'WWW-Authenticate': challenge
          ? `Bearer ${[challenge.tokenSent && 'error="invalid_token"', `resource_metadata="${challenge.resourceMetadata}"`].filter(Boolean).join(', ')}`
          : 'Bearer error="invalid_token"',
      },
    ),
  insufficientScope: (scope: string) =>
    new ProblemError(
      { status: 403, error: 'insufficient_scope', title: 'Insufficient scope', detail: `This operation needs the scope ${scope}.` },
      { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
    ),
  systemClientRequired: () =>
    problem(403, 'system_client_required', 'System client required', 'This operation is for system clients (integrations) only, not for per-user or interactive principals.'),
  originNotAllowed: (detail: string) => problem(403, 'origin_not_allowed', 'Origin not allowed', detail),
  notFound: (what = 'resource') => problem(404, 'not_found', 'Not found', `The ${what} does not exist or is outside your reach.`),
  routeNotFound: (path: string) => problem(404, 'route_not_found', 'Not found', `No operation is served at ${path}.`),
  methodNotAllowed: (method: string, path: string, allowed: string[]) =>
    new ProblemError(
      { status: 405, error: 'method_not_allowed', title: 'Method not allowed', detail: `${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.` },
      { Allow: allowed.join(', ') },
    ),
  conflict: (detail: string, extra: Partial<ProblemDetails> = {}) => problem(409, 'conflict', 'Conflict', detail, extra),
  idempotencyInFlight: () =>
    problem(409, 'idempotency_in_flight', 'Request in flight', 'A request with this Idempotency-Key is still running; retry later with the same key.'),
  idempotencyKeyReused: () =>
    problem(422, 'idempotency_key_reused', 'Idempotency-Key reused', 'This Idempotency-Key was used with a different request; use a new key for a new request.'),
  rateLimited: (retryAfterSeconds: number) =>
    new ProblemError(
      { status: 429, error: 'rate_limited', title: 'Too many requests', detail: `The request quota of this client is used up; retry after ${retryAfterSeconds} s.` },
      { 'Retry-After': String(retryAfterSeconds) },
    ),
  payloadTooLarge: (detail: string) => problem(413, 'payload_too_large', 'Payload too large', detail),
  internal: () =>
    problem(500, 'internal_error', 'Internal error', 'An unexpected error occurred; nothing about the request was wrong. Retrying is safe.'),
  serviceUnavailable: (retryAfterSeconds: number) =>
    new ProblemError(
      {
        status: 503,
        error: 'service_unavailable',
        title: 'Service unavailable',
        detail: `A store this request needs is busy (throttled) or failing for the moment; nothing about the request was wrong. Retry after ${retryAfterSeconds} s, with the same Idempotency-Key for a mutation.`,
      },
      { 'Retry-After': String(retryAfterSeconds) },
    ),
};

/** Seconds a client waits before retrying a request that met a busy or failing AWS service. */
export const unavailableRetryAfterSeconds = 2;

/**
 * Whether an error is an AWS service saying it is busy or failing (after the SDK's own retries):
 * throttling (DynamoDB ProvisionedThroughputExceeded, ThrottlingException, RequestLimitExceeded;
 * S3 SlowDown; SQS RequestThrottled), or a fault on the service's side (its 5xx). Such a request
 * answers 503 with Retry-After (retryable, spec: Errors), not 500.
 */
export const isAwsUnavailable = (error: unknown): boolean => {
  if (!error || typeof error !== 'object' || !('$metadata' in error)) return false;
  const { $retryable, $fault, name } = error as { $retryable?: { throttling?: boolean }; $fault?: string; name?: string };
  return $retryable?.throttling === true || $fault === 'server' || awsThrottlingErrors.has(name ?? '');
};

const awsThrottlingErrors = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'SlowDown', 'RequestThrottled', 'TooManyRequestsException']);

/** The most characters of a Problem's detail (the Problem schema's limit): a detail quoting what the client sent is cut to it. */
const maxDetail = 2000;

/** The Problem shape of the specification, rendered for one request. */
export const problemBody = (details: ProblemDetails, requestId: string) => ({
  type: `${problemTypeBase()}${details.error}`,
  title: details.title,
  status: details.status,
  detail: clip(details.detail, maxDetail),
  error: details.error,
  requestId,
  ...(details.reason !== undefined && { reason: details.reason }),
  ...(details.errors !== undefined && { errors: details.errors }),
  ...(details.jobId !== undefined && { jobId: details.jobId }),
  ...(details.inUse !== undefined && { inUse: details.inUse }),
  ...(details.accountCodes !== undefined && { accountCodes: details.accountCodes }),
});
