import { ConditionalCheckFailedException, InternalServerError, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { isAwsUnavailable } from '../../shared/platform/problem';

/** Which errors of the AWS SDK answer 503 service_unavailable (retryable) rather than 500. */
describe('isAwsUnavailable', () => {
  const metadata = { $metadata: {} };

  it('holds for throttling and for faults on the service side', () => {
    expect(isAwsUnavailable(new ProvisionedThroughputExceededException({ message: 'busy', ...metadata }))).toBe(true);
    expect(isAwsUnavailable(new InternalServerError({ message: 'failing', ...metadata }))).toBe(true);
    expect(isAwsUnavailable(Object.assign(new Error('slow down'), { name: 'SlowDown', ...metadata }))).toBe(true);
    expect(isAwsUnavailable(Object.assign(new Error('throttled'), { name: 'Anything', $retryable: { throttling: true }, ...metadata }))).toBe(true);
  });

  it('does not hold for the caller’s own faults, conditions, or errors that are not AWS answers', () => {
    expect(isAwsUnavailable(new ConditionalCheckFailedException({ message: 'condition', ...metadata }))).toBe(false);
    expect(isAwsUnavailable(Object.assign(new Error('bad'), { name: 'ValidationException', $fault: 'client', ...metadata }))).toBe(false);
    expect(isAwsUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isAwsUnavailable(Object.assign(new Error('no metadata'), { name: 'ThrottlingException' }))).toBe(false);
    expect(isAwsUnavailable(undefined)).toBe(false);
  });
});
