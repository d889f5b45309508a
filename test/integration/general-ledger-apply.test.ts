import { randomUUID } from 'node:crypto';
import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { parse } from 'lossless-json';
import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerOperations as generalLedgerOperations } from '../../functions/ledger/operations';
import { runWithReach } from '../support/operations';
import { createCompany } from '../../shared/companies/service';
import { organizationRepository } from '../../shared/identity/organization-repository';
import type { Principal } from '../../shared/identity/principal';
import type { ImportContext, ImportKind, RowOutcome } from '../../shared/imports/kind';
import { firstRowsOfIds } from '../../shared/imports/worker';
import { generalLedgerContracts } from '../../shared/ledger/general-ledger/contracts';
import {
  generalLedgerLineDeletions,
  generalLedgerLinesImport,
  openingBalanceDeletions,
  openingBalancesImport,
} from '../../shared/ledger/general-ledger/import-kinds';
import { lineIdOf, markLineReconciled, markOpeningBalanceReconciled, clearLineReconciliation } from '../../shared/ledger/general-ledger/repository';
import type { GeneralLedgerLinePage, TrialBalance } from '../../shared/ledger/general-ledger/schemas';
import {
  accountKeys,
  balancePartition,
  dimensionKeys,
  glLineKeys,
  glLinePartition,
  glLinePeriodIndexKeys,
  ledgerYearKeys,
  openingBalancePartition,
  subLedgerKeys,
  usageKeys,
  vatCellKeys,
} from '../../shared/ledger/keys';
import { PartitionPacer } from '../../shared/db/partition-pacer';
import { dynamo, tableName } from '../../shared/platform/aws';
import { stringifyJson } from '../../shared/platform/json';
import { Decimal } from '../../shared/platform/money';
import { api, expectProblem } from '../support/api';
import { testStack } from '../support/stack';

let companyId: string;
let principal: Principal;

const accounts = ['1500', '1920', '2400', '3000', '4000'];

/** Puts accounts straight into a year's chart (the chart import is another feature). */
const chart = async (year: number, codes = accounts, hidden: string[] = []) => {
  for (const code of [...codes, ...hidden]) {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...accountKeys(companyId, year, code), entity: 'account', accountCode: code, hidden: hidden.includes(code), companyId, year },
      }),
    );
  }
};

beforeAll(async () => {
  const stack = testStack();
  const organization = (await organizationRepository.get(stack.organizations[0]!.id))!;
  principal = {
    clientId: `gl-test-${randomUUID()}`,
    mode: 'SYSTEM',
    organizationId: organization.id,
    organizationPath: organization.path,
    userId: null,
    organizationIds: [],
    scopes: ['ledger:read', 'companies:write'],
    plan: 'premium',
  };
  companyId = (await createCompany(principal, { displayName: 'Hovedbok Test AS', accountingSystem: 'Api' })).id;
});

interface Run {
  context: ImportContext;
  outcomes: RowOutcome[];
}

const contextFor = (kind: ImportKind, year: number): ImportContext => ({
  companyId,
  importId: randomUUID(),
  datasetId: randomUUID(),
  year,
  mode: 'merge',
  lane: kind.lane,
  appliedAt: new Date().toISOString(),
});

/** Drives one import as the pipeline does: lossless parse, structure, precheck, then chunk by chunk. */
const runImport = async (kind: ImportKind, text: string, chunkSize = kind.chunkSize): Promise<Run> => {
  const body = kind.bodySchema.parse(parse(text));
  await kind.precheck?.(companyId, body);
  const rows = kind.rows(body);
  const context = contextFor(kind, kind.year(body)!);
  const outcomes: RowOutcome[] = [];
  const firstRowOfId = firstRowsOfIds(kind, rows); // as the worker passes it
  for (let index = 0; index * chunkSize < rows.length; index++) {
    const firstRow = index * chunkSize;
    outcomes.push(...(await kind.applyChunk(context, rows.slice(firstRow, firstRow + chunkSize), { index, firstRow, firstRowOfId, rows })));
  }
  return { context, outcomes };
};

const importLines = (year: number, lines: Record<string, unknown>[], chunkSize?: number) =>
  runImport(generalLedgerLinesImport, JSON.stringify({ year, lines }), chunkSize);
const deleteLines = (year: number, ids: string[]) => runImport(generalLedgerLineDeletions, JSON.stringify({ year, ids }));
const importOpening = (year: number, lines: Record<string, unknown>[]) => runImport(openingBalancesImport, JSON.stringify({ year, lines }));

const outcomesOf = (run: Run) => run.outcomes.map((outcome) => outcome.outcome);

const listLines = async (query: Record<string, string | number>): Promise<GeneralLedgerLinePage> => {
  const operation = generalLedgerOperations.listGeneralLedgerLines;
  const parsedQuery = operation.contract.query.parse(Object.fromEntries(Object.entries(query).map(([name, value]) => [name, String(value)])));
  const result = await runWithReach(operation, {
    params: { companyId },
    query: parsedQuery,
    body: undefined,
    principal,
    requestId: randomUUID(),
    operationId: 'listGeneralLedgerLines',
  });
  expect(result.status).toBe(200);
  return result.body as GeneralLedgerLinePage;
};

const allLines = async (query: Record<string, string | number>) => {
  const lines: GeneralLedgerLinePage['data'] = [];
  let cursor: string | null = null;
  do {
    const page: GeneralLedgerLinePage = await listLines({ ...query, page_size: 200, ...(cursor && { cursor }) });
    lines.push(...page.data);
    cursor = page.pagination.next_cursor;
  } while (cursor);
  return lines;
};

const trialBalance = async (year: number): Promise<TrialBalance> => {
  const operation = generalLedgerOperations.getTrialBalance;
  const result = await runWithReach(operation, {
    params: { companyId },
    query: operation.contract.query.parse({ year: String(year) }),
    body: undefined,
    principal,
    requestId: randomUUID(),
    operationId: 'getTrialBalance',
  });
  return result.body as TrialBalance;
};

const rawItems = async (partition: string) =>
  (await dynamo().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': partition } })))
    .Items ?? [];

const balanceCells = async (year: number) => {
  const Items = await rawItems(balancePartition(companyId, year));
  // Normalized text: DynamoDB may answer a sum of 0 as "0.0"
  return Object.fromEntries(Items.map((item) => [item.SK as string, `${new Decimal(String(item.amount)).toString()}/${String(item.lineCount)}`]));
};

const getItem = async (key: { PK: string; SK: string }) => (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key }))).Item;

const lineHistory = async (year: number, sourceId: string) => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :version)',
      ExpressionAttributeValues: { ':pk': glLinePartition(companyId, year, lineIdOf(companyId, year, sourceId)), ':version': 'VERSION#' },
    }),
  );
  return Items;
};

const accountOf = (balance: TrialBalance, code: string) => balance.accounts.find((account) => account.accountCode === code);

// One year's lines through successive imports: each step re-sends what the one before left.
describe('GL line import: merge by id (rule 9)', { shuffle: false }, () => {
  const year = 2031;
  beforeAll(() => chart(year));

  it('inserts new ids, updates known ids in place with history, leaves lines not re-sent', async () => {
    const first = await importLines(year, [
      { id: 'v1-a', accountCode: '1920', amount: '1000.50', period: 1, transactionId: 'V1', transactionNo: 17, description: 'Sale', transactionDate: '2031-01-15', taxCode: '3', taxAmount: '200.10', taxPercentage: '25' },
      { id: 'v1-b', accountCode: '3000', amount: '-1000.50', period: 1, transactionId: 'V1' },
      { id: 'v2-a', accountCode: '1500', amount: '0', period: 2 },
    ]);
    expect(outcomesOf(first)).toEqual(['inserted', 'inserted', 'inserted']);

    const lines = await allLines({ year });
    expect(lines.map((line) => line.sourceLineId)).toEqual(
      ['v1-a', 'v1-b'].sort((a, b) => lineIdOf(companyId, year, a).localeCompare(lineIdOf(companyId, year, b))).concat('v2-a'),
    );
    const saleLine = lines.find((line) => line.sourceLineId === 'v1-a')!;
    expect(saleLine).toMatchObject({
      lineId: lineIdOf(companyId, year, 'v1-a'),
      year,
      period: 1,
      accountCode: '1920',
      transactionId: 'V1',
      transactionNo: '17',
      description: 'Sale',
      transactionDate: '2031-01-15',
      taxCode: '3',
      dimensionKeys: [],
      subLedgerKeys: [],
      datasetId: first.context.datasetId,
      version: 1,
    });
    expect(saleLine.lineId).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
    expect(saleLine.amount.toString()).toBe('1000.5');
    expect(saleLine.taxAmount?.toString()).toBe('200.1');
    expect(saleLine.taxPercentage?.toString()).toBe('25');
    expect(lines.find((line) => line.sourceLineId === 'v2-a')!.amount.isZero()).toBe(true); // zero amounts are read

    const second = await importLines(year, [
      { id: 'v1-a', accountCode: '1920', amount: '1100.00', period: 1, description: 'Sale, corrected' },
      { id: 'v3-a', accountCode: '4000', amount: '50', period: 3 },
    ]);
    expect(outcomesOf(second)).toEqual(['updated', 'inserted']);
    const after = await allLines({ year });
    expect(after).toHaveLength(4); // v1-b and v2-a were not re-sent and stay
    const updated = after.find((line) => line.sourceLineId === 'v1-a')!;
    expect(updated).toMatchObject({ lineId: saleLine.lineId, version: 2, description: 'Sale, corrected', transactionId: null, taxAmount: null, datasetId: second.context.datasetId });
    expect(updated.amount.toString()).toBe('1100');

    const history = await lineHistory(year, 'v1-a');
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ version: expect.anything(), description: 'Sale', transactionId: 'V1', datasetId: first.context.datasetId });
    expect(String(history[0]!.amount)).toBe('1000.5');
    expect(history[0]!.GSI1PK).toBeUndefined(); // history never shows up in the read indexes
  });

  it('an unchanged re-send answers updated without a new version', async () => {
    const run = await importLines(year, [{ id: 'v2-a', accountCode: '1500', amount: '0.00', period: 2 }]);
    expect(outcomesOf(run)).toEqual(['updated']);
    const line = (await allLines({ year, period: 2 })).find((candidate) => candidate.sourceLineId === 'v2-a')!;
    expect(line).toMatchObject({ version: 1, datasetId: run.context.datasetId });
    expect(await lineHistory(year, 'v2-a')).toHaveLength(0);
  });

  it('moves a line between periods and accounts: indexes and aggregates follow', async () => {
    const before = await trialBalance(year);
    expect(accountOf(before, '3000')!.movements[0]!.amount.toString()).toBe('-1000.5');
    await importLines(year, [{ id: 'v1-b', accountCode: '2400', amount: '-1100', period: 4 }]);

    expect((await allLines({ year, period: 1 })).map((line) => line.sourceLineId)).toEqual(['v1-a']);
    expect((await allLines({ year, period: 4 })).map((line) => line.sourceLineId)).toEqual(['v1-b']);
    expect(await allLines({ year, account: '3000' })).toEqual([]);
    expect((await allLines({ year, account: '2400' })).map((line) => line.sourceLineId)).toEqual(['v1-b']);
    expect(await allLines({ year, account: '2400', period: 1 })).toEqual([]);

    const after = await trialBalance(year);
    expect(accountOf(after, '3000')).toBeUndefined(); // no line left on it
    expect(accountOf(after, '2400')!.movements[3]!.amount.toString()).toBe('-1100');
    const cells = await balanceCells(year);
    expect(cells['3000#01']).toBe('0/0');
    expect(cells['2400#04']).toBe('-1100/1');
  });

  it('fails duplicate ids row by row (within a chunk and across chunks), applies the rest', async () => {
    const run = await importLines(
      year,
      [
        { id: 'dup-1', accountCode: '1920', amount: '1', period: 5 },
        { id: 'dup-2', accountCode: '1920', amount: '2', period: 5 },
        { id: 'dup-1', accountCode: '1920', amount: '3', period: 5 },
        { id: 'dup-2', accountCode: '1920', amount: '4', period: 5 },
      ],
      3,
    );
    expect(outcomesOf(run)).toEqual(['inserted', 'inserted', 'failed', 'failed']);
    expect(run.outcomes[2]).toEqual({ outcome: 'failed', message: 'duplicate id "dup-1" in this request (first at line 1)' });
    expect(run.outcomes[3]).toEqual({ outcome: 'failed', message: 'duplicate id "dup-2" in this request (first at line 2)' });
    const lines = await allLines({ year, period: 5 });
    expect(lines.map((line) => line.amount.toString()).sort()).toEqual(['1', '2']);
    expect(accountOf(await trialBalance(year), '1920')!.movements[4]!.amount.toString()).toBe('3');
  });

  it('fails lines on hidden accounts row by row', async () => {
    await chart(year, [], ['7999']);
    const run = await importLines(year, [
      { id: 'hidden-1', accountCode: '7999', amount: '10', period: 6 },
      { id: 'shown-1', accountCode: '1920', amount: '10', period: 6 },
    ]);
    expect(run.outcomes).toEqual([{ outcome: 'failed', message: `account 7999 is hidden in ${year}` }, { outcome: 'inserted' }]);
  });

  it('refuses unknown account codes with 422 unknown_account_codes listing them; nothing is applied', async () => {
    const text = JSON.stringify({
      year,
      lines: [
        { id: 'u-1', accountCode: '1920', amount: '1', period: 7 },
        { id: 'u-2', accountCode: '9999', amount: '1', period: 7 },
        { id: 'u-3', accountCode: '9998', amount: '1', period: 7 },
        { id: 'u-4', accountCode: '9999', amount: '1', period: 7 },
      ],
    });
    await expect(runImport(generalLedgerLinesImport, text)).rejects.toMatchObject({
      problem: {
        status: 422,
        error: 'validation_failed',
        reason: 'unknown_account_codes',
        accountCodes: ['9999', '9998'],
        errors: [
          { index: 1, field: 'accountCode', message: `account code 9999 is not in the chart of ${year}` },
          { index: 2, field: 'accountCode', message: `account code 9998 is not in the chart of ${year}` },
        ],
      },
    });
    expect(await allLines({ year, period: 7 })).toEqual([]);
    await expect(runImport(openingBalancesImport, JSON.stringify({ year, lines: [{ id: 'ob-x', accountCode: '5555', amount: '1' }] }))).rejects.toMatchObject({
      problem: { status: 422, reason: 'unknown_account_codes', accountCodes: ['5555'] },
    });
  });

  it('keeps amounts exactly: "0.1", a 14-digit JSON number with 4 decimals, sums in the trial balance', async () => {
    const text = `{"year": ${year}, "lines": [
      {"id": "exact-1", "accountCode": "1500", "amount": "0.1", "period": 8},
      {"id": "exact-2", "accountCode": "1500", "amount": 0.2, "period": 8},
      {"id": "exact-3", "accountCode": "1500", "amount": 12345678901234.5678, "period": 8, "taxAmount": 0.0001, "taxPercentage": 12.3456}
    ]}`;
    expect(outcomesOf(await runImport(generalLedgerLinesImport, text))).toEqual(['inserted', 'inserted', 'inserted']);
    const lines = await allLines({ year, period: 8 });
    const amount = (id: string) => lines.find((line) => line.sourceLineId === id)!;
    expect(amount('exact-1').amount.toString()).toBe('0.1');
    expect(amount('exact-2').amount.toString()).toBe('0.2');
    expect(amount('exact-3').amount.toFixed()).toBe('12345678901234.5678');
    expect(amount('exact-3').taxAmount!.toFixed()).toBe('0.0001');
    expect(amount('exact-3').taxPercentage!.toFixed()).toBe('12.3456');
    expect(accountOf(await trialBalance(year), '1500')!.movements[7]!.amount.toFixed()).toBe('12345678901234.8678');
    // On the wire: JSON numbers with at least two decimals and every decimal the amount has.
    const wire = stringifyJson(lines);
    expect(wire).toContain('"amount":0.10,');
    expect(wire).toContain('"amount":12345678901234.5678,');
    expect(wire).toContain('"taxAmount":0.0001,"taxPercentage":12.3456,');
  });

  it('validates the structure: unknown fields, more than 4 decimals, missing fields; null optionals are accepted', () => {
    const result = generalLedgerLinesImport.bodySchema.safeParse(
      parse(`{"year": ${year}, "lines": [
        {"id": "s-1", "accountCode": "1920", "amount": 1.23456, "period": 1, "colour": "red"},
        {"id": "s:2", "accountCode": "1920", "period": 13},
        {"id": "s-3", "accountCode": "1920", "amount": "1", "period": 1, "description": null, "taxAmount": null, "dimensionKeys": null}
      ]}`),
    );
    expect(result.success).toBe(false);
    const issues = result.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(issues).toEqual(
      expect.arrayContaining([
        'lines.0.amount: must have at most 4 decimals',
        'lines.0: Unknown field: colour.',
        "lines.1.id: must not contain ':'",
        'lines.1.amount: must be a decimal amount (a string like "1250.50" or a JSON number)',
        'lines.1.period: must be between 1 and 12',
      ]),
    );
    expect(issues.some((issue) => issue.startsWith('lines.2'))).toBe(false);
    const deletion = generalLedgerLineDeletions.bodySchema.safeParse(parse(`{"year": ${year}, "ids": ["a", "b", "a"]}`));
    expect(deletion.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([['ids.2', 'duplicate id (also at index 0)']]);
    expect(generalLedgerLineDeletions.bodySchema.safeParse(parse(`{"year": ${year}, "ids": []}`)).success).toBe(false);
  });
});

describe('a year nothing was imported into: its rows are not read before they are written', () => {
  const year = 2041;
  beforeAll(() => chart(year));

  it('answers as a year with lines does: a duplicate of an earlier chunk, a redelivered chunk, then a second import updating', async () => {
    const lines = [
      { id: 'u-1', accountCode: '1920', amount: '1', period: 1 },
      { id: 'u-2', accountCode: '1920', amount: '2', period: 1 },
      { id: 'u-1', accountCode: '1920', amount: '3', period: 1 }, // the id of a row of chunk 0
      { id: 'u-3', accountCode: '3000', amount: '4', period: 2 },
    ];
    const run = await importLines(year, lines, 2);
    expect(outcomesOf(run)).toEqual(['inserted', 'inserted', 'failed', 'inserted']);
    expect(run.outcomes[2]).toEqual({ outcome: 'failed', message: 'duplicate id "u-1" in this request (first at line 1)' });
    // Chunk 1 delivered again (a crash before it was recorded): a chunk started before is read, so it answers the same and counts once.
    const rows = generalLedgerLinesImport.rows(generalLedgerLinesImport.bodySchema.parse(parse(JSON.stringify({ year, lines }))));
    const again = await generalLedgerLinesImport.applyChunk(run.context, rows.slice(2), { index: 1, firstRow: 2, firstRowOfId: firstRowsOfIds(generalLedgerLinesImport, rows) });
    expect(again).toEqual(run.outcomes.slice(2));
    const balance = await trialBalance(year);
    expect(accountOf(balance, '1920')!.movements[0]!.amount.toString()).toBe('3');
    expect(accountOf(balance, '3000')!.movements[1]!.amount.toString()).toBe('4');
    // The next import of the year reads its rows: a known id is an update.
    const second = await importLines(year, [{ id: 'u-1', accountCode: '1920', amount: '5', period: 1 }]);
    expect(outcomesOf(second)).toEqual(['updated']);
    expect(accountOf(await trialBalance(year), '1920')!.movements[0]!.amount.toString()).toBe('7');
    expect((await allLines({ year, period: 1 })).map((line) => line.amount.toString()).sort()).toEqual(['2', '5']);
  });
});

describe('the counters of a year nothing was imported into', () => {
  const year = 2042;
  beforeAll(() => chart(year));

  it('are written whole where no earlier chunk named the cell and added to where one did, once however often a chunk comes', async () => {
    const lines = [
      { id: 'p-1', accountCode: '1920', amount: '10', period: 1, taxCode: '3', taxAmount: '2.5' },
      { id: 'p-2', accountCode: '3000', amount: '-4', period: 2 },
      { id: 'p-3', accountCode: '1920', amount: '5', period: 1, taxCode: '3', taxAmount: '1.25' }, // cells chunk 0 named
      { id: 'p-4', accountCode: '3000', amount: '7', period: 3 }, // a cell no earlier chunk named
      { id: 'p-5', accountCode: '3000', amount: '1', period: 3 }, // a cell chunk 1 named
    ];
    const run = await importLines(year, lines, 2);
    expect(outcomesOf(run)).toEqual(['inserted', 'inserted', 'inserted', 'inserted', 'inserted']);
    const cells = await balanceCells(year);
    expect(cells).toEqual({ '1920#01': '15/2', '3000#02': '-4/1', '3000#03': '8/2' });
    const vat = (await getItem(vatCellKeys(companyId, year, '3', 1)))!;
    expect([vat.basis, vat.taxAmount, vat.lineCount].map((value) => new Decimal(String(value)).toString())).toEqual(['15', '3.75', '2']);
    expect(String((await getItem(ledgerYearKeys(companyId, year, 'general_ledger_lines')))!.generalLedgerLines)).toBe('5');

    // Chunks 1 and 2 delivered again (crashes before they were recorded): nothing counts twice.
    const rows = generalLedgerLinesImport.rows(generalLedgerLinesImport.bodySchema.parse(parse(JSON.stringify({ year, lines }))));
    const position = (index: number) => ({ index, firstRow: index * 2, firstRowOfId: firstRowsOfIds(generalLedgerLinesImport, rows), rows });
    expect(await generalLedgerLinesImport.applyChunk(run.context, rows.slice(2, 4), position(1))).toEqual(run.outcomes.slice(2, 4));
    expect(await generalLedgerLinesImport.applyChunk(run.context, rows.slice(4), position(2))).toEqual(run.outcomes.slice(4));
    expect(await balanceCells(year)).toEqual(cells);
    expect(new Decimal(String((await getItem(vatCellKeys(companyId, year, '3', 1)))!.basis)).toString()).toBe('15');
    expect(accountOf(await trialBalance(year), '3000')!.closingBalance.toString()).toBe('4');
  });
});

// Successive imports of one year: each step works on what the one before left.
describe('redelivery of a chunk', { shuffle: false }, () => {
  const year = 2032;
  beforeAll(() => chart(year));

  it('answers the same outcomes and leaves counters, lines and history unchanged', async () => {
    await importLines(year, [
      { id: 'r-1', accountCode: '1920', amount: '10', period: 1, dimensionKeys: ['dep-r'] },
      { id: 'r-2', accountCode: '3000', amount: '20', period: 2 },
    ]);
    const body = generalLedgerLinesImport.bodySchema.parse(
      parse(
        JSON.stringify({
          year,
          lines: [
            { id: 'r-1', accountCode: '4000', amount: '11', period: 3, dimensionKeys: ['dep-r2'] }, // moved
            { id: 'r-3', accountCode: '1920', amount: '30', period: 1 }, // new
            { id: 'r-3', accountCode: '1920', amount: '31', period: 1 }, // duplicate
            { id: 'r-2', accountCode: '3000', amount: '20', period: 2 }, // unchanged
          ],
        }),
      ),
    );
    const context = contextFor(generalLedgerLinesImport, year);
    const rows = generalLedgerLinesImport.rows(body);
    const first = await generalLedgerLinesImport.applyChunk(context, rows, { index: 0, firstRow: 0 });
    const cells = await balanceCells(year);
    const lines = await allLines({ year });
    const usage = await getItem(usageKeys(companyId, 'dimension', 'dep-r2', 'general_ledger_lines'));
    const second = await generalLedgerLinesImport.applyChunk(context, rows, { index: 0, firstRow: 0 });
    expect(second).toEqual(first);
    expect(outcomesOf({ context, outcomes: first })).toEqual(['updated', 'inserted', 'failed', 'updated']);
    expect(await balanceCells(year)).toEqual(cells);
    expect(await allLines({ year })).toEqual(lines);
    expect(await getItem(usageKeys(companyId, 'dimension', 'dep-r2', 'general_ledger_lines'))).toEqual(usage);
    expect(await lineHistory(year, 'r-1')).toHaveLength(1);
    expect(cells).toMatchObject({ '1920#01': '30/1', '3000#02': '20/1', '4000#03': '11/1' });
  });

  it('after a crash between the line writes and the counters, the redelivery applies the counters it missed', async () => {
    const crashYear = 2037;
    await chart(crashYear);
    await importLines(crashYear, [{ id: 'c-1', accountCode: '1920', amount: '10', period: 1, dimensionKeys: ['dep-c'] }]);
    const counters = async () => [
      ...(await rawItems(balancePartition(companyId, crashYear))),
      (await getItem(usageKeys(companyId, 'dimension', 'dep-c', 'general_ledger_lines')))!,
      (await getItem(ledgerYearKeys(companyId, crashYear, 'general_ledger_lines')))!,
    ];
    const beforeCrash = await counters();

    const rows = generalLedgerLinesImport.rows(
      generalLedgerLinesImport.bodySchema.parse(
        parse(
          JSON.stringify({
            year: crashYear,
            lines: [
              { id: 'c-1', accountCode: '3000', amount: '12', period: 2 },
              { id: 'c-2', accountCode: '1920', amount: '5', period: 1, dimensionKeys: ['dep-c'] },
            ],
          }),
        ),
      ),
    );
    const context = contextFor(generalLedgerLinesImport, crashYear);
    const first = await generalLedgerLinesImport.applyChunk(context, rows, { index: 0, firstRow: 0 });
    const applied = await balanceCells(crashYear);
    // Simulate the crash: the lines are written, the counter updates never happened.
    for (const item of await rawItems(balancePartition(companyId, crashYear))) {
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } }));
    }
    for (const item of beforeCrash) await dynamo().send(new PutCommand({ TableName: tableName(), Item: item }));

    expect(await generalLedgerLinesImport.applyChunk(context, rows, { index: 0, firstRow: 0 })).toEqual(first);
    expect(await balanceCells(crashYear)).toEqual(applied);
    expect(applied).toMatchObject({ '1920#01': '5/1', '3000#02': '12/1' });
    expect(String((await getItem(usageKeys(companyId, 'dimension', 'dep-c', 'general_ledger_lines')))!.count)).toBe('1');
    expect(String((await getItem(ledgerYearKeys(companyId, crashYear, 'general_ledger_lines')))!.generalLedgerLines)).toBe('2');
  });

  it('of a deletion chunk answers deleted again and counts once', async () => {
    const context = contextFor(generalLedgerLineDeletions, year);
    const first = await generalLedgerLineDeletions.applyChunk(context, ['r-3', 'never'], { index: 0, firstRow: 0 });
    const cells = await balanceCells(year);
    const second = await generalLedgerLineDeletions.applyChunk(context, ['r-3', 'never'], { index: 0, firstRow: 0 });
    expect(first).toEqual([{ outcome: 'deleted' }, { outcome: 'unknown' }]);
    expect(second).toEqual(first);
    expect(await balanceCells(year)).toEqual(cells);
    expect(cells['1920#01']).toBe('0/0');
  });
});

// Successive imports of one year: each step works on what the one before left.
describe('deletions (rule 11)', { shuffle: false }, () => {
  const year = 2033;
  beforeAll(() => chart(year));

  it('deletes known ids, reports unknown ones, keeps history; a deleted id re-imported is a line again', async () => {
    await importLines(year, [
      { id: 'd-1', accountCode: '1920', amount: '100', period: 1, subLedgerKeys: ['cust-9'] },
      { id: 'd-2', accountCode: '1920', amount: '200', period: 1 },
    ]);
    await importLines(year, [{ id: 'd-1', accountCode: '1920', amount: '150', period: 1, subLedgerKeys: ['cust-9'] }]);
    expect(await getItem(usageKeys(companyId, 'subLedger', 'cust-9', 'general_ledger_lines'))).toMatchObject({ count: expect.anything() });

    const run = await deleteLines(year, ['d-1', 'nope']);
    expect(outcomesOf(run)).toEqual(['deleted', 'unknown']);
    expect((await allLines({ year })).map((line) => line.sourceLineId)).toEqual(['d-2']);
    expect(await allLines({ year, account: '1920' })).toHaveLength(1);
    const current = await getItem(glLineKeys(companyId, year, lineIdOf(companyId, year, 'd-1')));
    expect(current).toMatchObject({ deleted: true, deletedAt: run.context.appliedAt, datasetId: run.context.datasetId, sourceLineId: 'd-1' });
    expect(current!.GSI1PK).toBeUndefined();
    expect(current!.GSI2PK).toBeUndefined();
    // the deletion is a version of its own: version 2 (the live one) went to history whole
    expect(String(current!.version)).toBe('3');
    expect(await lineHistory(year, 'd-1')).toHaveLength(2);
    expect(String((await getItem(usageKeys(companyId, 'subLedger', 'cust-9', 'general_ledger_lines')))!.count)).toBe('0');
    expect(accountOf(await trialBalance(year), '1920')!.closingBalance.toString()).toBe('200');
    expect(outcomesOf(await deleteLines(year, ['d-1']))).toEqual(['unknown']);

    expect(outcomesOf(await importLines(year, [{ id: 'd-1', accountCode: '1920', amount: '5', period: 2 }]))).toEqual(['inserted']);
    const back = (await allLines({ year, period: 2 }))[0]!;
    expect(back).toMatchObject({ sourceLineId: 'd-1', version: 4 });
    expect(await lineHistory(year, 'd-1')).toHaveLength(3);
    expect(accountOf(await trialBalance(year), '1920')!.closingBalance.toString()).toBe('205');
  });

  it('refuses the whole deletion with 409 lines_in_use when a named line is reconciled', async () => {
    const lineId = lineIdOf(companyId, year, 'd-2');
    expect(await markLineReconciled(companyId, year, lineId, 'group-1')).toBe(true);
    expect(await markLineReconciled(companyId, year, lineId, 'group-2')).toBe(false); // already in another group
    await expect(runImport(generalLedgerLineDeletions, JSON.stringify({ year, ids: ['d-1', 'd-2'] }))).rejects.toMatchObject({
      problem: { status: 409, error: 'conflict', reason: 'lines_in_use', inUse: [{ id: 'd-2', reconciliationGroupId: 'group-1' }] },
    });
    expect((await allLines({ year })).map((line) => line.sourceLineId).sort()).toEqual(['d-1', 'd-2']);

    // A re-import keeps the reconciliation mark (it belongs to another feature).
    await importLines(year, [{ id: 'd-2', accountCode: '1920', amount: '201', period: 1 }]);
    const reimported = await getItem(glLineKeys(companyId, year, lineId));
    expect(reimported).toMatchObject({ reconciliationGroupId: 'group-1' });
    expect(String(reimported!.version)).toBe('2');

    // Reconciled after the precheck: that row fails at apply time, nothing else is held back.
    const context = contextFor(generalLedgerLineDeletions, year);
    expect(await generalLedgerLineDeletions.applyChunk(context, ['d-2'], { index: 0, firstRow: 0 })).toEqual([
      { outcome: 'failed', message: 'the line was reconciled meanwhile and is not deleted' },
    ]);
    expect(await clearLineReconciliation(companyId, year, lineId, 'group-1')).toBe(true);
    expect(outcomesOf(await deleteLines(year, ['d-2']))).toEqual(['deleted']);
    expect(await markLineReconciled(companyId, year, lineId, 'group-3')).toBe(false); // deleted lines cannot be reconciled
  });
});

describe('opening balances', () => {
  const year = 2034;
  beforeAll(() => chart(year));

  it('merge by id with history, aggregate at period 0, deletions and 409 opening_balances_in_use', async () => {
    const first = await importOpening(year, [
      { id: 'ob-1', accountCode: '1920', amount: '5000', subLedgerKeys: ['cust-ob'] },
      { id: 'ob-2', accountCode: '2400', amount: '-5000' },
    ]);
    expect(outcomesOf(first)).toEqual(['inserted', 'inserted']);
    expect(outcomesOf(await importOpening(year, [{ id: 'ob-1', accountCode: '1920', amount: '5200.25' }]))).toEqual(['updated']);
    const { Items: history = [] } = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :history)',
        ExpressionAttributeValues: { ':pk': openingBalancePartition(companyId, year), ':history': 'HISTORY#ob-1#' },
      }),
    );
    expect(history.map((item) => String(item.amount))).toEqual(['5000']);
    expect(await getItem(subLedgerKeys(companyId, 'cust-ob'))).toMatchObject({ entity: 'subLedger', key: 'cust-ob', value: 'cust-ob', type: null, autoCreated: true });
    expect(String((await getItem(usageKeys(companyId, 'subLedger', 'cust-ob', 'opening_balances')))!.count)).toBe('0');

    await importLines(year, [{ id: 'l-1', accountCode: '1920', amount: '100', period: 1 }]);
    const balance = await trialBalance(year);
    expect(accountOf(balance, '1920')!.openingBalance.toString()).toBe('5200.25');
    expect(accountOf(balance, '1920')!.closingBalance.toString()).toBe('5300.25');
    expect((await balanceCells(year))['1920#00']).toBe('5200.25/1');

    expect(await markOpeningBalanceReconciled(companyId, year, 'ob-2', 'group-ob')).toBe(true);
    await expect(runImport(openingBalanceDeletions, JSON.stringify({ year, ids: ['ob-2'] }))).rejects.toMatchObject({
      problem: { status: 409, reason: 'opening_balances_in_use', inUse: [{ id: 'ob-2', reconciliationGroupId: 'group-ob' }] },
    });
    expect(outcomesOf(await runImport(openingBalanceDeletions, JSON.stringify({ year, ids: ['ob-1', 'ob-9'] })))).toEqual(['deleted', 'unknown']);
    expect(accountOf(await trialBalance(year), '1920')!.openingBalance.toString()).toBe('0');
    expect(await getItem(ledgerYearKeys(companyId, year, 'opening_balances'))).toMatchObject({ lastImportAt: expect.any(String) });
    expect(String((await getItem(ledgerYearKeys(companyId, year, 'opening_balances')))!.openingBalances)).toBe('1');
  });
});

describe('dimensions and sub-ledgers named by lines (rule 2) and usage counters', () => {
  const year = 2035;
  beforeAll(() => chart(year));

  it('creates missing keys as plain values, never overwrites pushed ones, counts live lines per key', async () => {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...dimensionKeys(companyId, 'dep-sales'), entity: 'dimension', key: 'dep-sales', value: 'Sales', type: 'department', autoCreated: false },
      }),
    );
    await importLines(year, [
      { id: 'k-1', accountCode: '3000', amount: '1', period: 1, dimensionKeys: ['dep-sales', 'proj-x'], subLedgerKeys: ['cust-1'] },
      { id: 'k-2', accountCode: '3000', amount: '1', period: 1, dimensionKeys: ['proj-x', 'proj-x'] },
    ]);
    expect(await getItem(dimensionKeys(companyId, 'dep-sales'))).toMatchObject({ value: 'Sales', type: 'department', autoCreated: false });
    expect(await getItem(dimensionKeys(companyId, 'proj-x'))).toMatchObject({ entity: 'dimension', key: 'proj-x', value: 'proj-x', type: null, autoCreated: true, createdAt: expect.any(String) });
    expect(await getItem(subLedgerKeys(companyId, 'cust-1'))).toMatchObject({ entity: 'subLedger', value: 'cust-1', autoCreated: true });
    const count = async (kind: 'dimension' | 'subLedger', key: string) => String((await getItem(usageKeys(companyId, kind, key, 'general_ledger_lines')))?.count ?? 0);
    expect([await count('dimension', 'dep-sales'), await count('dimension', 'proj-x'), await count('subLedger', 'cust-1')]).toEqual(['1', '2', '1']);

    await importLines(year, [{ id: 'k-1', accountCode: '3000', amount: '1', period: 1, dimensionKeys: ['proj-x'] }]);
    expect([await count('dimension', 'dep-sales'), await count('dimension', 'proj-x'), await count('subLedger', 'cust-1')]).toEqual(['0', '2', '0']);
    await deleteLines(year, ['k-2']);
    expect(await count('dimension', 'proj-x')).toBe('1');
    const summary = await getItem(ledgerYearKeys(companyId, year, 'general_ledger_lines'));
    expect(summary).toMatchObject({ lane: 'general_ledger_lines', lastImportAt: expect.any(String) });
    expect(String(summary!.generalLedgerLines)).toBe('1');
  });
});

describe('an import paced per index partition key', { shuffle: false }, () => {
  const pacedYear = 2043;
  /** A clock that moves only when the pacer waits, so a budget of seconds costs the test none. */
  const fakeClock = () => {
    let now = 0;
    return { now: () => now, sleep: async (ms: number) => void (now += ms) }; // each reservation reads now: concurrent waits stay in order
  };
  const pacedRun = async (kind: ImportKind, text: string, pacer: PartitionPacer, chunkSize: number) => {
    const rows = kind.rows(kind.bodySchema.parse(parse(text)));
    const context: ImportContext = { ...contextFor(kind, pacedYear), indexPacer: pacer };
    const outcomes: RowOutcome[] = [];
    const firstRowOfId = firstRowsOfIds(kind, rows);
    for (let index = 0; index * chunkSize < rows.length; index++) {
      const firstRow = index * chunkSize;
      const chunk = rows.slice(firstRow, firstRow + chunkSize);
      const position = { index, firstRow, firstRowOfId, rows };
      const first = await kind.applyChunk(context, chunk, position);
      expect(await kind.applyChunk(context, chunk, position)).toEqual(first); // a redelivery of the chunk, paced too
      outcomes.push(...first);
    }
    return outcomes.map((outcome) => outcome.outcome);
  };
  const periodKey = (period: number) => `GSI1PK ${glLinePeriodIndexKeys(companyId, pacedYear, period, 'x').GSI1PK}`;
  const lines = Array.from({ length: 80 }, (_, i) => ({ id: `pace-${i}`, accountCode: accounts[i % 2]!, amount: `${i + 1}.25`, period: 1 }));

  beforeAll(() => chart(pacedYear));

  it('writes every line of a one-period import exactly once while waiting for the budget', async () => {
    const pacer = new PartitionPacer(20, fakeClock());
    expect(await pacedRun(generalLedgerLinesImport, JSON.stringify({ year: pacedYear, lines }), pacer, 50)).toEqual(lines.map(() => 'inserted'));
    // 80 entries into one GSI1 key at 20 a second (4 BatchWrites, one a second): the writes waited, and
    // the key's last second holds the last 5, so 20 more must wait while another period's key is free.
    expect(pacer.waits).toBe(3);
    expect(pacer.waitedMs).toBe(3000);
    expect(pacer.reserve(new Map([[periodKey(1), 20]]))).toBeGreaterThan(0);
    expect(pacer.reserve(new Map([[periodKey(5), 20]]))).toBe(0);
    const stored = await allLines({ year: pacedYear, period: 1 });
    expect(stored.map((line) => line.sourceLineId).sort()).toEqual(lines.map((line) => line.id).sort());
    expect(new Set(stored.map((line) => line.version))).toEqual(new Set([1]));
    expect(await lineHistory(pacedYear, 'pace-0')).toHaveLength(0);
    expect(await balanceCells(pacedYear)).toMatchObject({ '1500#01': '1610/40', '1920#01': '1650/40' }); // the counters once too
  });

  it('paces updates that move lines and deletions: each once, in the right period', async () => {
    const moved = lines.slice(0, 30).map((line) => ({ ...line, period: 2 }));
    const pacer = new PartitionPacer(10, fakeClock());
    expect(await pacedRun(generalLedgerLinesImport, JSON.stringify({ year: pacedYear, lines: moved }), pacer, 25)).toEqual(moved.map(() => 'updated'));
    expect(pacer.waits).toBeGreaterThan(0);
    const ids = lines.slice(30, 50).map((line) => line.id);
    const deletionPacer = new PartitionPacer(10, fakeClock());
    expect(await pacedRun(generalLedgerLineDeletions, JSON.stringify({ year: pacedYear, ids }), deletionPacer, 25)).toEqual(ids.map(() => 'deleted'));
    expect(deletionPacer.waits).toBeGreaterThan(0);
    const byPeriod = async (period: number) => (await allLines({ year: pacedYear, period })).map((line) => line.sourceLineId).sort();
    expect(await byPeriod(1)).toEqual(lines.slice(50).map((line) => line.id).sort());
    expect(await byPeriod(2)).toEqual(moved.map((line) => line.id).sort());
    expect(await lineHistory(pacedYear, 'pace-0')).toHaveLength(1);
  });
});

describe('reads', () => {
  const year = 2036;
  const spread = [1, 1, 1, 3, 5, 5, 5, 12, 12, 2];
  beforeAll(async () => {
    await chart(year);
    await importLines(
      year,
      spread.map((period, i) => ({ id: `p-${i}`, accountCode: i % 2 === 0 ? '1920' : '3000', amount: `${i}.5`, period })),
    );
  });

  const order = (lines: { period: number; lineId: string }[]) =>
    [...lines].sort((a, b) => a.period - b.period || (a.lineId < b.lineId ? -1 : a.lineId > b.lineId ? 1 : 0));

  it('pages through every period in order (period, then line id), cursors continuing across periods', async () => {
    for (const pageSize of [1, 2, 3, 4, 10, 11]) {
      const seen: GeneralLedgerLinePage['data'] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 20; page++) {
        const result: GeneralLedgerLinePage = await listLines({ year, page_size: pageSize, ...(cursor && { cursor }) });
        expect(result.data.length).toBeLessThanOrEqual(pageSize);
        seen.push(...result.data);
        cursor = result.pagination.next_cursor;
        expect(result.pagination.has_more).toBe(cursor !== null);
        if (!cursor) break;
        expect(result.data).toHaveLength(pageSize);
      }
      expect(seen).toHaveLength(spread.length);
      expect(seen.map((line) => line.lineId)).toEqual(order(seen).map((line) => line.lineId));
    }
  });

  it('filters by period and by account (with and without period), with cursors', async () => {
    expect((await allLines({ year, period: 5 })).map((line) => line.sourceLineId).sort()).toEqual(['p-4', 'p-5', 'p-6']);
    const onAccount = await allLines({ year, account: '1920' });
    expect(onAccount.map((line) => line.sourceLineId).sort()).toEqual(['p-0', 'p-2', 'p-4', 'p-6', 'p-8']);
    expect(onAccount.map((line) => line.lineId)).toEqual(order(onAccount).map((line) => line.lineId));
    const first = await listLines({ year, account: '3000', page_size: 2 });
    const rest = await listLines({ year, account: '3000', page_size: 10, cursor: first.pagination.next_cursor! });
    expect([...first.data, ...rest.data].map((line) => line.sourceLineId).sort()).toEqual(['p-1', 'p-3', 'p-5', 'p-7', 'p-9']);
    expect(rest.pagination).toEqual({ next_cursor: null, has_more: false });
    expect((await allLines({ year, account: '3000', period: 5 })).map((line) => line.sourceLineId)).toEqual(['p-5']);
    expect(await allLines({ year, account: '9999' })).toEqual([]);
  });

  it('refuses a cursor with other filters (400 invalid_cursor)', async () => {
    const first = await listLines({ year, page_size: 1 });
    await expect(listLines({ year, period: 1, page_size: 1, cursor: first.pagination.next_cursor! })).rejects.toMatchObject({
      problem: { status: 400, error: 'invalid_cursor' },
    });
  });

  it('answers 404 for a company outside the reach', async () => {
    const operation = generalLedgerOperations.getTrialBalance;
    await expect(
      runWithReach(operation, { params: { companyId: randomUUID() }, query: { year }, body: undefined, principal, requestId: 'r', operationId: 'getTrialBalance' }),
    ).rejects.toMatchObject({ problem: { status: 404 } });
  });

  it('trial balance: closing at N = opening + movements 1..N, totals over accounts', async () => {
    await importOpening(year, [
      { id: 'o-1', accountCode: '1920', amount: '1000.10' },
      { id: 'o-2', accountCode: '2400', amount: '-1000.10' },
    ]);
    const balance = await trialBalance(year);
    expect(balance.year).toBe(year);
    expect(balance.accounts.map((account) => account.accountCode)).toEqual(['1920', '2400', '3000']);
    for (const account of balance.accounts) {
      expect(account.movements.map((movement) => movement.period)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      expect(account.movements.map((movement) => movement.label)).toEqual([
        'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December',
      ]);
      let running = account.openingBalance;
      for (const movement of account.movements) {
        running = running.plus(movement.amount);
        expect(movement.closingBalance.equals(running)).toBe(true);
      }
      expect(account.closingBalance.equals(running)).toBe(true);
    }
    const bank = accountOf(balance, '1920')!;
    expect(bank.openingBalance.toString()).toBe('1000.1');
    // 1920 holds p-0 (period 1, 0.5), p-2 (1, 2.5), p-4 (5, 4.5), p-6 (5, 6.5), p-8 (12, 8.5)
    expect(bank.movements.map((movement) => movement.amount.toString())).toEqual(['3', '0', '0', '0', '11', '0', '0', '0', '0', '0', '0', '8.5']);
    expect(bank.movements.map((movement) => movement.closingBalance.toString())).toEqual([
      '1003.1', '1003.1', '1003.1', '1003.1', '1014.1', '1014.1', '1014.1', '1014.1', '1014.1', '1014.1', '1014.1', '1022.6',
    ]);
    expect(bank.closingBalance.toString()).toBe('1022.6');
    expect(balance.totals.openingBalance.toString()).toBe('0');
    expect(balance.totals.closingBalance.toString()).toBe('50'); // the lines sum to 0.5 + 1.5 + ... + 9.5
    const wire = stringifyJson(balance);
    expect(wire).toContain('{"period":1,"label":"January","amount":3.00,"closingBalance":1003.10}');
  });

  it('over HTTP: both reads answer shapes that match the published OpenAPI document', async () => {
    const page = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${year}&period=1&page_size=2`, { as: 'a-system' });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(2);
    expect(page.text).toContain('"taxAmount":null');
    const next = await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${year}&period=1&page_size=2&cursor=${encodeURIComponent(page.body.pagination.next_cursor)}`, { as: 'a-system' });
    expect(next.body.data).toHaveLength(1);
    // which page holds which line depends on the lineIds (derived from the random company id)
    expect(page.text + next.text).toMatch(/"amount":0\.50,/);
    const balance = await api('GET', `/v1/companies/${companyId}/trial-balance?year=${year}`, { as: 'a-system' });
    expect(balance.status).toBe(200);
    expect(balance.body.accounts.length).toBeGreaterThan(0);
    expectProblem(await api('GET', `/v1/companies/${companyId}/trial-balance?year=${year}`, { as: 'b-system' }), 404, 'not_found');
    expectProblem(await api('GET', `/v1/companies/${companyId}/general-ledger/lines?period=13`, { as: 'a-system' }), 400, 'validation_failed');
  });

  it('the read shapes render as an OpenAPI document (amounts as decimal numbers)', () => {
    const registry = new OpenAPIRegistry();
    for (const [operationId, contract] of Object.entries(generalLedgerContracts)) {
      registry.registerPath({
        method: 'get',
        path: `/v1/${operationId}/{companyId}`,
        operationId,
        request: { params: contract.params, query: contract.query },
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: contract.responses[200].schema } } } },
      });
    }
    const document = new OpenApiGeneratorV3(registry.definitions).generateDocument({ openapi: '3.0.3', info: { title: 't', version: '1' } });
    const schemas = document.components!.schemas as Record<string, { properties: Record<string, unknown> }>;
    expect(schemas.GeneralLedgerLine!.properties.amount).toMatchObject({ type: 'number', format: 'decimal' });
    expect(schemas.GeneralLedgerLine!.properties.taxAmount).toMatchObject({ type: 'number', nullable: true });
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['TrialBalance', 'TrialBalanceAccount', 'GeneralLedgerLinePage']));
  });
});
