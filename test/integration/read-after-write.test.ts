import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { companyRepository } from '../../shared/companies/repository';
import { listGeneralLedgerLineVersions } from '../../shared/ledger/general-ledger/history';
import { ledgerYearSummaries } from '../../shared/ledger/general-ledger/repository';
import { documentRepository } from '../../shared/documents/repository';
import { jobRepository } from '../../shared/jobs/repository';
import { dynamo } from '../../shared/platform/aws';
import { observingCalls } from '../support/sdk-calls';
import { testStack } from '../support/stack';

/**
 * Reads that follow the caller's own write must see it. DynamoDB Local always reads strongly, so
 * these tests look at what the repositories ask for: `ConsistentRead` on each such GetItem.
 */
const consistentReadsOf = async (run: () => Promise<unknown>, command = 'GetItemCommand'): Promise<unknown[]> => {
  const seen: unknown[] = [];
  await observingCalls(dynamo(), (commandName, input) => commandName === command && seen.push(input.ConsistentRead), run);
  return seen;
};

describe('reads after the caller\'s own write', () => {
  it('a company (every company-scoped request reads it, often right after changing it), a job (polled right after the 202 that created it), a document and its declaration are read strongly', async () => {
    testStack();
    expect(await consistentReadsOf(() => companyRepository.get(randomUUID()))).toEqual([true]);
    expect(await consistentReadsOf(() => jobRepository.get(randomUUID()))).toEqual([true]);
    expect(await consistentReadsOf(() => documentRepository.get(randomUUID()))).toEqual([true]);
    expect(await consistentReadsOf(() => documentRepository.getDeclaration(randomUUID()))).toEqual([true]);
  });

  it("a ledger's year summaries (readiness reads them beside the chart it reads strongly; the versions of a line find its year in them) are read strongly", async () => {
    testStack();
    const companyId = randomUUID();
    expect(await consistentReadsOf(() => ledgerYearSummaries(companyId), 'QueryCommand')).toEqual([true]);
    const caller = { caller: 'read-after-write', operationId: 'listGeneralLedgerLineVersions' };
    expect(await consistentReadsOf(() => listGeneralLedgerLineVersions(companyId, 'no-such-line', { page_size: 10 }, caller).catch(() => undefined), 'QueryCommand')).toEqual([true]);
  });
});
