import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { parse } from 'lossless-json';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../shared/companies/service';
import { organizationRepository } from '../../shared/identity/organization-repository';
import type { Principal } from '../../shared/identity/principal';
import type { ImportContext, ImportKind, RowOutcome } from '../../shared/imports/kind';
import {
  generalLedgerLineDeletions,
  generalLedgerLinesImport,
  openingBalanceDeletions,
  openingBalancesImport,
} from '../../shared/ledger/general-ledger/import-kinds';
import type { GeneralLedgerLinePage } from '../../shared/ledger/general-ledger/schemas';
import { getTrialBalance, listGeneralLedgerLines } from '../../shared/ledger/general-ledger/service';
import {
  accountKeys,
  balancePartition,
  ledgerPartition,
  ledgerYearKeys,
  openingBalanceLinePrefix,
  openingBalancePartition,
  pad2,
  usageKeys,
  usagePartition,
  vatCellPartition,
} from '../../shared/ledger/keys';
import { dynamo, tableName } from '../../shared/platform/aws';
import { Decimal } from '../../shared/platform/money';
import { listVatTerms } from '../../shared/vat/service';
import { testStack } from '../support/stack';

/*
 * Random sequences of GL-line and opening-balance imports, re-imports (amount, account, period,
 * dimensions, tax code and tax amount changing), deletions and redelivered chunks (after a clean
 * delivery, or after a crash between the row writes and the counter updates), applied through
 * the import kinds; after each sequence the stored counters (trial balance, VAT, usage, year
 * summaries) must equal a full recomputation from the current lines.
 */

const codes = ['1000', '2000', '3000'];
const lineIds = ['a', 'b', 'c', 'd', 'e'];
const openingIds = ['o1', 'o2', 'o3'];
const dimensions = ['d1', 'd2'];
const taxCodes = ['3', '1', '86'];

let companyId: string;
const year = 2030;
let principal: Principal;

/** Usage counters are per company (not per year), so every sequence gets a company of its own. */
const newCompany = async () => {
  companyId = (await createCompany(principal, { displayName: 'Saldobalanse Egenskap AS', accountingSystem: 'Api' })).id;
  for (const code of codes) {
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: { ...accountKeys(companyId, year, code), accountCode: code, hidden: false } }));
  }
};

beforeAll(async () => {
  const stack = testStack();
  const organization = (await organizationRepository.get(stack.organizations[0]!.id))!;
  principal = {
    clientId: `tb-property-${randomUUID()}`,
    mode: 'SYSTEM' as const,
    organizationId: organization.id,
    organizationPath: organization.path,
    userId: null,
    organizationIds: [],
    scopes: [],
    plan: 'premium' as const,
  };
});

const amount = fc.integer({ min: -5_000_000, max: 5_000_000 }).map((n) => new Decimal(n).div(10_000).toFixed());
const glLine = fc.record({
  id: fc.constantFrom(...lineIds),
  accountCode: fc.constantFrom(...codes),
  period: fc.integer({ min: 1, max: 3 }),
  amount,
  dimensionKeys: fc.subarray(dimensions),
  // Absent fields are left out of the JSON (a line without taxCode counts in no VAT cell).
  taxCode: fc.option(fc.constantFrom(...taxCodes), { nil: undefined }),
  taxAmount: fc.option(amount, { nil: undefined }),
});
const openingLine = fc.record({ id: fc.constantFrom(...openingIds), accountCode: fc.constantFrom(...codes), amount });
const delivery = { chunkSize: fc.integer({ min: 1, max: 4 }), redeliver: fc.constantFrom('no' as const, 'after_success' as const, 'after_crash' as const) };

const kinds = Object.fromEntries(
  [generalLedgerLinesImport, generalLedgerLineDeletions, openingBalancesImport, openingBalanceDeletions].map((kind) => [kind.name, kind]),
);

// Steps name their kind (shrunk counterexamples stay readable).
const step = fc.oneof(
  fc.record({ kind: fc.constant(generalLedgerLinesImport.name), body: fc.array(glLine, { minLength: 1, maxLength: 6 }).map((lines) => ({ lines })), ...delivery }),
  fc.record({ kind: fc.constant(generalLedgerLineDeletions.name), body: fc.uniqueArray(fc.constantFrom(...lineIds), { minLength: 1, maxLength: 3 }).map((ids) => ({ ids })), ...delivery }),
  fc.record({ kind: fc.constant(openingBalancesImport.name), body: fc.array(openingLine, { minLength: 1, maxLength: 4 }).map((lines) => ({ lines })), ...delivery }),
  fc.record({ kind: fc.constant(openingBalanceDeletions.name), body: fc.uniqueArray(fc.constantFrom(...openingIds), { minLength: 1, maxLength: 2 }).map((ids) => ({ ids })), ...delivery }),
);

type Step = { kind: string; body: Record<string, unknown>; chunkSize: number; redeliver: 'no' | 'after_success' | 'after_crash' };

/**
 * As the pipeline: lossless parse, structure, precheck, chunks in order, each applied twice when
 * redelivered. 'after_crash' puts every counter item back as it was before the chunk (the rows are
 * written, the counter updates never happened), so the redelivery must rebuild the exact deltas
 * from what the rows store (previousState).
 */
const run = async ({ kind: name, body, chunkSize, redeliver }: Step): Promise<RowOutcome[]> => {
  const kind: ImportKind = kinds[name]!;
  const parsed = kind.bodySchema.parse(parse(JSON.stringify({ year, ...body })));
  await kind.precheck?.(companyId, parsed);
  const rows = kind.rows(parsed);
  const context: ImportContext = {
    companyId,
    importId: randomUUID(),
    datasetId: randomUUID(),
    year,
    mode: 'merge',
    lane: kind.lane,
    appliedAt: new Date().toISOString(),
  };
  const outcomes: RowOutcome[] = [];
  for (let index = 0; index * chunkSize < rows.length; index++) {
    const firstRow = index * chunkSize;
    const chunk = rows.slice(firstRow, firstRow + chunkSize);
    const counters = redeliver === 'after_crash' ? await counterItems() : [];
    const first = await kind.applyChunk(context, chunk, { index, firstRow });
    if (redeliver === 'after_crash') await restoreCounters(counters);
    if (redeliver !== 'no') expect(await kind.applyChunk(context, chunk, { index, firstRow })).toEqual(first);
    outcomes.push(...first);
  }
  return outcomes;
};

const queryAll = async (pk: string, prefix = '') => {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: prefix ? 'PK = :pk AND begins_with(SK, :prefix)' : 'PK = :pk',
        ExpressionAttributeValues: { ':pk': pk, ...(prefix && { ':prefix': prefix }) },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return items;
};

/** Every counter item of the company: trial-balance and VAT cells, usage counts, year summaries. */
const counterItems = async () =>
  (await Promise.all([balancePartition(companyId, year), vatCellPartition(companyId, year), usagePartition(companyId), ledgerPartition(companyId)].map((pk) => queryAll(pk)))).flat();

const restoreCounters = async (snapshot: Record<string, unknown>[]) => {
  for (const item of await counterItems()) await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } }));
  for (const item of snapshot) await dynamo().send(new PutCommand({ TableName: tableName(), Item: item }));
};

const currentLines = async (year: number) => {
  const lines: GeneralLedgerLinePage['data'] = [];
  let cursor: string | undefined;
  do {
    const page = await listGeneralLedgerLines(companyId, { year, page_size: 200, cursor }, { caller: 'property', operationId: 'listGeneralLedgerLines' });
    lines.push(...page.data);
    cursor = page.pagination.next_cursor ?? undefined;
  } while (cursor);
  return lines;
};

const stored = (value: unknown) => new Decimal(value === undefined ? 0 : String(value));

describe('trial-balance aggregates (property)', () => {
  it('equal a full recomputation from the current lines after any sequence of imports, re-imports and deletions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        await newCompany();
        // The expected ledger: merge by id, later duplicates within a request fail, deletions of unknown ids do nothing.
        const expectedLines = new Map<string, { accountCode: string; period: number; amount: string; dimensionKeys: string[]; taxCode?: string; taxAmount?: string }>();
        const expectedOpening = new Map<string, { accountCode: string; amount: string }>();
        for (const current of steps as Step[]) {
          const outcomes = await run(current);
          const rows = (current.body.lines ?? current.body.ids) as (Record<string, unknown> | string)[];
          const seen = new Set<string>();
          rows.forEach((row, i) => {
            const id = typeof row === 'string' ? row : String(row.id);
            const target: Map<string, unknown> = kinds[current.kind]!.lane === 'general_ledger_lines' ? expectedLines : expectedOpening;
            if (seen.has(id)) return expect(outcomes[i]!.outcome).toBe('failed');
            seen.add(id);
            if (typeof row === 'string') {
              expect(outcomes[i]!.outcome).toBe(target.has(id) ? 'deleted' : 'unknown');
              target.delete(id);
            } else {
              expect(outcomes[i]!.outcome).toBe(target.has(id) ? 'updated' : 'inserted');
              target.set(id, row);
            }
          });
        }

        // The current lines as stored (read path) match the expected ledger.
        const lines = await currentLines(year);
        const taxText = (value: Decimal | string | null | undefined) => (value === null || value === undefined ? null : new Decimal(value.toString()).toString());
        expect(
          lines.map((line) => [line.sourceLineId, line.accountCode, line.period, line.amount.toString(), line.dimensionKeys, line.taxCode, taxText(line.taxAmount)]).sort(),
        ).toEqual(
          [...expectedLines]
            .map(([id, line]) => [id, line.accountCode, line.period, new Decimal(line.amount).toString(), line.dimensionKeys, line.taxCode ?? null, taxText(line.taxAmount)])
            .sort(),
        );
        const openings = (await queryAll(openingBalancePartition(companyId, year), openingBalanceLinePrefix)).filter((item) => item.deleted !== true);
        expect(openings.map((item) => [item.sourceLineId, item.accountCode, stored(item.amount).toString()]).sort()).toEqual(
          [...expectedOpening].map(([id, line]) => [id, line.accountCode, new Decimal(line.amount).toString()]).sort(),
        );

        // Full recomputation of every (account, period) cell from the current lines.
        const expected = new Map<string, { amount: Decimal; lineCount: number }>();
        const count = (code: string, period: number, value: Decimal) => {
          const cell = expected.get(`${code}#${pad2(period)}`) ?? { amount: new Decimal(0), lineCount: 0 };
          expected.set(`${code}#${pad2(period)}`, { amount: cell.amount.plus(value), lineCount: cell.lineCount + 1 });
        };
        for (const line of lines) count(line.accountCode, line.period, line.amount);
        for (const item of openings) count(String(item.accountCode), 0, stored(item.amount));

        const cells = await queryAll(balancePartition(companyId, year));
        for (const cell of cells) {
          const want = expected.get(String(cell.SK)) ?? { amount: new Decimal(0), lineCount: 0 };
          expect([String(cell.SK), stored(cell.amount).toString(), Number(String(cell.lineCount))]).toEqual([String(cell.SK), want.amount.toString(), want.lineCount]);
        }
        for (const key of expected.keys()) expect(cells.some((cell) => cell.SK === key)).toBe(true);

        // The trial balance read from them: closing = opening + all movements, per account.
        const balance = await getTrialBalance(companyId, year);
        for (const account of balance.accounts) {
          const sum = [0, 1, 2, 3].reduce((total, period) => total.plus(expected.get(`${account.accountCode}#${pad2(period)}`)?.amount ?? 0), new Decimal(0));
          expect(account.closingBalance.toString()).toBe(sum.toString());
          expect(account.movements[2]!.closingBalance.toString()).toBe(sum.toString());
        }

        // VAT cells: per (period, tax code) the sums of amount and taxAmount and the count of live lines with that code.
        const expectedVat = new Map<string, { basis: Decimal; taxAmount: Decimal; lineCount: number }>();
        for (const line of lines) {
          if (line.taxCode === null) continue;
          const key = `${pad2(line.period)}#${line.taxCode}`;
          const cell = expectedVat.get(key) ?? { basis: new Decimal(0), taxAmount: new Decimal(0), lineCount: 0 };
          expectedVat.set(key, { basis: cell.basis.plus(line.amount), taxAmount: cell.taxAmount.plus(line.taxAmount ?? 0), lineCount: cell.lineCount + 1 });
        }
        const vatCells = await queryAll(vatCellPartition(companyId, year));
        for (const cell of vatCells) {
          const want = expectedVat.get(String(cell.SK)) ?? { basis: new Decimal(0), taxAmount: new Decimal(0), lineCount: 0 };
          expect([String(cell.SK), stored(cell.basis).toString(), stored(cell.taxAmount).toString(), Number(String(cell.lineCount))]).toEqual([
            String(cell.SK),
            want.basis.toString(),
            want.taxAmount.toString(),
            want.lineCount,
          ]);
        }
        for (const key of expectedVat.keys()) expect(vatCells.some((cell) => cell.SK === key)).toBe(true);

        // The VAT terms read from them: every live line with a tax code is in exactly one term.
        const terms = await listVatTerms({ id: companyId, vatFrequency: 'bimonthly' }, year);
        const counted = terms.data.flatMap((term) => term.taxCodes.map((code) => [term.term, code.taxCode, code.lineCount] as const));
        const expectedCounts = [...expectedVat].map(([key, cell]) => {
          const [period, taxCode] = key.split('#');
          return [Math.ceil(Number(period) / 2), taxCode!, cell.lineCount] as const;
        });
        const byTermAndCode = (entries: (readonly [number, string, number])[]) => {
          const totals = new Map<string, number>();
          for (const [term, taxCode, count] of entries) totals.set(`${term}/${taxCode}`, (totals.get(`${term}/${taxCode}`) ?? 0) + count);
          return Object.fromEntries([...totals].filter(([, count]) => count > 0));
        };
        expect(byTermAndCode(counted)).toEqual(byTermAndCode(expectedCounts));

        // Usage counters and the year summaries.
        for (const key of dimensions) {
          const usage = (await queryAll(usageKeys(companyId, 'dimension', key, 'general_ledger_lines').PK, usageKeys(companyId, 'dimension', key, 'general_ledger_lines').SK))[0];
          expect(Number(String(usage?.count ?? 0))).toBe(lines.filter((line) => line.dimensionKeys.includes(key)).length);
        }
        const [glSummary] = await queryAll(ledgerYearKeys(companyId, year, 'general_ledger_lines').PK, ledgerYearKeys(companyId, year, 'general_ledger_lines').SK);
        const [obSummary] = await queryAll(ledgerYearKeys(companyId, year, 'opening_balances').PK, ledgerYearKeys(companyId, year, 'opening_balances').SK);
        expect(Number(String(glSummary?.generalLedgerLines ?? 0))).toBe(lines.length);
        expect(Number(String(obSummary?.openingBalances ?? 0))).toBe(openings.length);
      }),
      { numRuns: Number(process.env.TB_RUNS ?? 20) },
    );
  });
});
