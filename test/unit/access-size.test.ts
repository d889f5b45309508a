import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { maxAccessBytes, storable } from '../../shared/access/service';
import type { EffectiveAccess } from '../../shared/identity/access-evaluator';
import { ProblemError } from '../../shared/platform/problem';

/**
 * A person's effective access is one item: one that would pass DynamoDB's 400 KB is refused with
 * 409 access_too_large before anything is written (over HTTP it takes thousands of real companies;
 * the 2,000-resource bound of a policy is shown in test/integration/access.test.ts).
 */
const accessNaming = (companies: number): EffectiveAccess => ({
  userId: randomUUID(),
  memberships: [randomUUID()],
  assignments: [{ id: randomUUID(), policyId: randomUUID() }],
  rules: [{ effect: 'allow', actions: ['ledger:read'], resources: { companies: Array.from({ length: companies }, () => randomUUID()) }, policyId: randomUUID(), policyName: 'Many companies', ruleIndex: 0 }],
  organizationPaths: {},
  revision: 1,
  computedAt: new Date().toISOString(),
});

describe('the size of a person\'s effective access', () => {
  it('is stored up to maxAccessBytes and refused beyond, naming the person', () => {
    const fits = accessNaming(7000); // 39 bytes an id: about 273 KB
    expect(storable(fits)).toBe(fits);
    const over = accessNaming(8000); // about 312 KB
    let refused: unknown;
    try {
      storable(over);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).problem).toMatchObject({ status: 409, error: 'conflict', reason: 'access_too_large' });
    expect((refused as ProblemError).problem.detail).toContain(over.userId);
    expect(maxAccessBytes).toBeLessThan(400 * 1024);
  });
});
