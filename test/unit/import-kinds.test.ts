import { describe, expect, it } from 'vitest';
import { importKind, importKinds } from '../../shared/composition/import-kinds';
import type { ImportKind } from '../../shared/imports/kind';
import { importKindNames } from '../../shared/imports/schemas';
import { firstRowsOfIds } from '../../shared/imports/worker';
import { parseLosslessJson } from '../../shared/platform/lossless-json';

/** A request body as the pipeline reads it (lossless numbers), parsed by the kind's schema. */
const bodyOf = (kind: ImportKind, body: unknown) => kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body)));
const rowIds = (kind: ImportKind, body: unknown) => kind.rows(bodyOf(kind, body)).map((row) => kind.rowId(row));

describe('import kinds', () => {
  it('are exactly the kinds the import list names, once each', () => {
    expect(importKinds.map((kind) => kind.name).sort()).toEqual([...importKindNames].sort());
  });

  it('name each row by the id it is merged or deleted by', () => {
    expect(
      rowIds(importKind('accounts'), {
        year: 2024,
        accounts: [
          { accountCode: '1920', accountDescription: 'Bank', accountCategory: 'Balance' },
          { accountCode: '3000', accountDescription: 'Sales', accountCategory: 'Result' },
        ],
      }),
    ).toEqual(['1920', '3000']);
    expect(rowIds(importKind('dimensions'), { dimensions: [{ key: 'D1', value: 'Sales', type: 'department' }] })).toEqual(['D1']);
    expect(rowIds(importKind('sub_ledgers'), { subLedgers: [{ key: 'C1', value: 'Customer AS', type: 'customer' }] })).toEqual(['C1']);
    expect(rowIds(importKind('general_ledger_lines'), { year: 2024, lines: [{ id: 'L1', accountCode: '1920', amount: '10.00', period: 1 }] })).toEqual(['L1']);
    expect(rowIds(importKind('opening_balances'), { year: 2024, lines: [{ id: 'O1', accountCode: '1920', amount: '10.00' }] })).toEqual(['O1']);
    expect(rowIds(importKind('open_items'), { subLedgerType: 'customer', mode: 'incremental', items: [{ itemKey: 'I1', subLedgerType: 'customer', sourceDeleted: true }] })).toEqual(['I1']);
    for (const name of ['general_ledger_line_deletions', 'opening_balance_deletions'] as const) {
      expect(rowIds(importKind(name), { year: 2024, ids: ['A', 'B'] })).toEqual(['A', 'B']);
    }
  });

  it('key firstRowOfId by the kind\'s own row id, whatever the field is called', () => {
    const kind = { rowId: (row: { code: string }) => row.code };
    expect([...firstRowsOfIds(kind, [{ code: 'x' }, { code: 'y' }, { code: 'x' }, { code: 'z' }])]).toEqual([
      ['x', 0],
      ['y', 1],
      ['z', 3],
    ]);
  });

  it('report unbalanced vouchers on GL-line imports only', () => {
    const lines = [
      { id: 'L1', accountCode: '1920', amount: '100.10', period: 1, transactionId: 'T1' },
      { id: 'L2', accountCode: '3000', amount: '-100.10', period: 1, transactionId: 'T1' },
      { id: 'L3', accountCode: '1920', amount: '5', period: 1, transactionId: 'T2' },
    ];
    const gl = importKind('general_ledger_lines');
    expect(gl.warnings(bodyOf(gl, { year: 2024, lines }))).toEqual([
      expect.objectContaining({ code: 'unbalanced_vouchers', transactionIds: ['T2'], count: 1 }),
    ]);
    expect(gl.warnings(bodyOf(gl, { year: 2024, lines: lines.slice(0, 2) }))).toEqual([]);
    const ob = importKind('opening_balances');
    expect(ob.warnings(bodyOf(ob, { year: 2024, lines: [{ id: 'O1', accountCode: '1920', amount: '5' }] }))).toEqual([]);
  });
});
