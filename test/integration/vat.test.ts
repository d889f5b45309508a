import { describe, expect, it } from 'vitest';
import { createTestClient } from '../support/clients';
import { norwegianDate } from '../../shared/platform/norway-time';
import { api, expectProblem, tokenFor } from '../support/api';
import { chartOf, importAndWait, newApiCompany } from '../support/ledger';
import { inThisNorwegianYear } from '../support/norwegian-year';
import { seededClient, testStack } from '../support/stack';

/*
 * VAT terms over HTTP. The books of 2024 (a past year, so no term is open) are pushed as an
 * integrator would; every expected figure below is computed by hand from these lines.
 */

const year = 2024;

const line = (id: string, accountCode: string, amount: string, period: number, extra: Record<string, unknown> = {}) => ({
  id,
  accountCode,
  amount,
  period,
  transactionId: `V-${id.split('-')[0]}`,
  transactionDate: `${year}-${String(period).padStart(2, '0')}-15`,
  ...extra,
});
const tax = (taxCode: string, taxAmount?: string) => ({ taxCode, ...(taxAmount !== undefined && { taxAmount }) });

const accounts = ['1500', '1920', '2400', '2700', '2701', '2702', '2710', '2711', '2740', '3000', '3010', '3020', '3100', '3200', '4000', '4010', '4020', '6790'];

const lines = [
  // Term 1 (January-February): sales at 25 % and 15 %, a domestic purchase at 25 %, services bought abroad (86), a VAT settlement.
  line('s1-rev', '3000', '-1000.00', 1, tax('3', '-250.00')),
  line('s1-vat', '2700', '-250.00', 1),
  line('s1-cus', '1500', '1250.00', 1),
  line('s2-rev', '3010', '-400.00', 2, tax('31', '-60.00')),
  line('s2-vat', '2701', '-60.00', 2),
  line('s2-cus', '1500', '460.00', 2),
  line('p1-cost', '4000', '800.00', 2, tax('1', '200.00')),
  line('p1-vat', '2710', '200.00', 2),
  line('p1-sup', '2400', '-1000.00', 2),
  line('rc1-cost', '6790', '2000.00', 1, tax('86', '500.00')),
  line('rc1-out', '2702', '-500.00', 1),
  line('rc1-in', '2711', '500.00', 1),
  line('rc1-sup', '2400', '-2000.00', 1),
  line('set1-vat', '2740', '1000.00', 2),
  line('set1-bank', '1920', '-1000.00', 2),
  // Term 2 (March-April): a sale at 12 %, purchases at 15 % and 12 %, an exempt sale (6) and a zero-rated export (52).
  line('s3-rev', '3020', '-800.00', 3, tax('33', '-96.00')),
  line('s3-vat', '2700', '-96.00', 3),
  line('s3-cus', '1500', '896.00', 3),
  line('p2-cost', '4010', '600.00', 4, tax('11', '90.00')),
  line('p2-vat', '2710', '90.00', 4),
  line('p2-sup', '2400', '-690.00', 4),
  line('p3-cost', '4020', '300.00', 4, tax('13', '36.00')),
  line('p3-vat', '2710', '36.00', 4),
  line('p3-sup', '2400', '-336.00', 4),
  line('s4-rev', '3200', '-5000.00', 3, tax('6')),
  line('s4-cus', '1500', '5000.00', 3),
  line('s5-rev', '3100', '-7000.00', 4, tax('52')),
  line('s5-cus', '1500', '7000.00', 4),
  // Term 3 (May-June): a sale at 25 % whose VAT was booked 20.00 short.
  line('s6-rev', '3000', '-2000.00', 5, tax('3', '-500.00')),
  line('s6-vat', '2700', '-480.00', 5),
  line('s6-cus', '1500', '2480.00', 5),
  // Term 5 (September-October): a credit note at 25 %, and a line with a company-specific tax code.
  line('c1-rev', '3000', '400.00', 9, tax('3', '100.00')),
  line('c1-vat', '2700', '100.00', 9),
  line('c1-cus', '1500', '-500.00', 9),
  line('x1-rev', '3000', '-100.00', 10, tax('X9', '-25.00')),
  line('x1-cus', '1500', '100.00', 10),
];

const seedBooks = async (companyId: string) => {
  await importAndWait(companyId, 'accounts', chartOf(year, accounts));
  const done = await importAndWait(companyId, 'general-ledger-lines', { year, lines });
  expect(done.body).toMatchObject({ status: 'succeeded', rowsInserted: lines.length });
};

const terms = async (companyId: string, query = `?year=${year}`, as = 'a-system') => {
  const response = await api('GET', `/v1/companies/${companyId}/vat/terms${query}`, { as });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response;
};

const codesOf = (term: { taxCodes: { taxCode: string }[] }) => term.taxCodes.map((code) => code.taxCode);

describe('GET /v1/companies/{companyId}/vat/terms', () => {
  it('six bimonthly terms with dates, due dates, totals per tax code and reconciliation against the VAT accounts', async () => {
    const companyId = await newApiCompany();
    await seedBooks(companyId);
    const response = await terms(companyId);
    expect(response.body.pagination).toEqual({ next_cursor: null, has_more: false });
    const data = response.body.data;
    expect(data.map((t: { term: number; fromDate: string; toDate: string; filingDueDate: string; periods: number[] }) => [t.term, t.fromDate, t.toDate, t.periods, t.filingDueDate])).toEqual([
      [1, '2024-01-01', '2024-02-29', [1, 2], '2024-04-10'],
      [2, '2024-03-01', '2024-04-30', [3, 4], '2024-06-10'],
      [3, '2024-05-01', '2024-06-30', [5, 6], '2024-08-31'],
      [4, '2024-07-01', '2024-08-31', [7, 8], '2024-10-10'],
      [5, '2024-09-01', '2024-10-31', [9, 10], '2024-12-10'],
      [6, '2024-11-01', '2024-12-31', [11, 12], '2025-02-10'],
    ]);
    expect(data.map((t: { status: string }) => t.status)).toEqual(['reconciled', 'reconciled', 'discrepancy', 'no_activity', 'reconciled', 'no_activity']);
    expect(data.every((t: { year: number; frequency: string }) => t.year === 2024 && t.frequency === 'bimonthly')).toBe(true);

    // Term 1: output 250 + 60 + 500 (reverse charge) = 810; input 200 + 500 (reverse charge, deductible) = 700.
    const [first, second, third, fourth, fifth] = data;
    expect(first.taxCodes).toEqual([
      { taxCode: '1', standard: true, description: 'Input VAT deductible (domestic)', descriptionNorwegian: 'Fradragsberettiget innenlands inngående merverdiavgift', direction: 'input', reverseCharge: false, rate: 0.25, lineCount: 1, basis: 800, outputVat: 0, inputVat: 200 },
      { taxCode: '3', standard: true, description: 'Output VAT', descriptionNorwegian: 'Utgående merverdiavgift', direction: 'output', reverseCharge: false, rate: 0.25, lineCount: 1, basis: 1000, outputVat: 250, inputVat: 0 },
      { taxCode: '31', standard: true, description: 'Output VAT', descriptionNorwegian: 'Utgående merverdiavgift', direction: 'output', reverseCharge: false, rate: 0.15, lineCount: 1, basis: 400, outputVat: 60, inputVat: 0 },
      {
        taxCode: '86',
        standard: true,
        description: 'Services purchased from abroad, VAT deductible',
        descriptionNorwegian: 'Tjenester kjøpt fra utlandet med fradragsrett for merverdiavgift',
        direction: 'output',
        reverseCharge: true,
        rate: 0.25,
        lineCount: 1,
        basis: 2000,
        outputVat: 500,
        inputVat: 500,
      },
    ]);
    expect(first.totals).toEqual({ outputVat: 810, inputVat: 700, netVat: 110, position: 'payable' });
    // 2740 (settlement) is not a VAT account.
    expect(first.reconciliation).toEqual({
      bookedOutputVat: 810,
      bookedInputVat: 700,
      outputVatDifference: 0,
      inputVatDifference: 0,
      accounts: [
        { accountCode: '2700', direction: 'output', movement: -250 },
        { accountCode: '2701', direction: 'output', movement: -60 },
        { accountCode: '2702', direction: 'output', movement: -500 },
        { accountCode: '2710', direction: 'input', movement: 200 },
        { accountCode: '2711', direction: 'input', movement: 500 },
      ],
    });

    // Term 2: output 96; input 90 + 36 = 126; net -30, refundable. Exempt (6) and zero-rated (52) sales carry a basis and no VAT.
    expect(codesOf(second)).toEqual(['11', '13', '33', '52', '6']);
    const byCode = Object.fromEntries(second.taxCodes.map((code: { taxCode: string }) => [code.taxCode, code]));
    expect(byCode['52']).toMatchObject({ direction: 'output', rate: 0, basis: 7000, outputVat: 0, inputVat: 0 });
    expect(byCode['6']).toMatchObject({ direction: 'none', rate: null, basis: 5000, outputVat: 0, inputVat: 0 });
    expect(byCode['33']).toMatchObject({ rate: 0.12, basis: 800, outputVat: 96 });
    expect(byCode['13']).toMatchObject({ rate: 0.12, basis: 300, inputVat: 36 });
    expect(second.totals).toEqual({ outputVat: 96, inputVat: 126, netVat: -30, position: 'refundable' });
    expect(second.reconciliation).toMatchObject({ bookedOutputVat: 96, bookedInputVat: 126, outputVatDifference: 0, inputVatDifference: 0 });

    // Term 3: 500 computed against 480 booked.
    expect(third.totals).toEqual({ outputVat: 500, inputVat: 0, netVat: 500, position: 'payable' });
    expect(third.reconciliation).toEqual({
      bookedOutputVat: 480,
      bookedInputVat: 0,
      outputVatDifference: 20,
      inputVatDifference: 0,
      accounts: [{ accountCode: '2700', direction: 'output', movement: -480 }],
    });

    expect(fourth).toMatchObject({ taxCodes: [], totals: { outputVat: 0, inputVat: 0, netVat: 0, position: 'zero' } });
    expect(fourth.reconciliation.accounts).toEqual([]);

    // Term 5: a credit note reduces output VAT (-100); a non-standard code is listed but counts in no total.
    expect(fifth.taxCodes).toEqual([
      { taxCode: '3', standard: true, description: 'Output VAT', descriptionNorwegian: 'Utgående merverdiavgift', direction: 'output', reverseCharge: false, rate: 0.25, lineCount: 1, basis: -400, outputVat: -100, inputVat: 0 },
      { taxCode: 'X9', standard: false, description: null, descriptionNorwegian: null, direction: 'none', reverseCharge: false, rate: null, lineCount: 1, basis: -100, outputVat: 0, inputVat: 0 },
    ]);
    expect(fifth.totals).toEqual({ outputVat: -100, inputVat: 0, netVat: -100, position: 'refundable' });
    expect(fifth.reconciliation).toMatchObject({ bookedOutputVat: -100, outputVatDifference: 0 });

    // Amounts are JSON numbers with explicit decimals.
    expect(response.text).toContain('"totals":{"outputVat":810.00,"inputVat":700.00,"netVat":110.00,"position":"payable"}');
    expect(response.text).toContain('"rate":0.25');
  });

  it('VAT paid on import (14, 15): the line is the VAT itself, no basis; its basis is the one under 21 (22)', async () => {
    const companyId = await newApiCompany();
    await importAndWait(companyId, 'accounts', chartOf(year, ['2400', '2714', '4300']));
    const imported = [
      line('i1-goods', '4300', '2000.00', 1, tax('21')),
      line('i1-vat', '2714', '500.00', 1, tax('14')), // no taxAmount: the line is the VAT
      line('i2-goods', '4300', '1000.00', 2, tax('22')),
      line('i2-vat', '2714', '150.00', 2, tax('15', '150.00')),
      line('i1-sup', '2400', '-3650.00', 2),
    ];
    expect((await importAndWait(companyId, 'general-ledger-lines', { year, lines: imported })).body.status).toBe('succeeded');
    const [first] = (await terms(companyId)).body.data;
    const byCode = Object.fromEntries(first.taxCodes.map((code: { taxCode: string }) => [code.taxCode, code]));
    expect(byCode['21']).toMatchObject({ basis: 2000, outputVat: 0, inputVat: 0 });
    expect(byCode['22']).toMatchObject({ basis: 1000, outputVat: 0, inputVat: 0 });
    expect(byCode['14']).toMatchObject({ basis: 0, inputVat: 500 });
    expect(byCode['15']).toMatchObject({ basis: 0, inputVat: 150 });
    expect(first.totals).toEqual({ outputVat: 0, inputVat: 650, netVat: -650, position: 'refundable' });
    expect(first.reconciliation).toMatchObject({ bookedInputVat: 650, inputVatDifference: 0 });
  });

  it('follows a re-import that changes a tax code and deletions of lines', async () => {
    const companyId = await newApiCompany();
    await seedBooks(companyId);

    // p3 moves from 13 (12 %) to 11 (15 %) with 45.00 VAT; its VAT line still says 36.00.
    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [line('p3-cost', '4020', '300.00', 4, tax('11', '45.00'))] });
    let second = (await terms(companyId)).body.data[1];
    expect(codesOf(second)).toEqual(['11', '33', '52', '6']);
    expect(second.taxCodes[0]).toMatchObject({ taxCode: '11', lineCount: 2, basis: 900, inputVat: 135 });
    expect(second).toMatchObject({ status: 'discrepancy', totals: { outputVat: 96, inputVat: 135, netVat: -39, position: 'refundable' } });
    expect(second.reconciliation).toMatchObject({ bookedInputVat: 126, inputVatDifference: 9, outputVatDifference: 0 });

    // The VAT line corrected: reconciled again.
    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [line('p3-vat', '2710', '45.00', 4)] });
    second = (await terms(companyId)).body.data[1];
    expect(second).toMatchObject({ status: 'reconciled', reconciliation: { bookedInputVat: 135, inputVatDifference: 0 } });

    // Term 3: deleting the sale leaves the booked 480 unexplained; deleting the VAT line too leaves no activity.
    await importAndWait(companyId, 'general-ledger-lines/deletions', { year, ids: ['s6-rev'] });
    let third = (await terms(companyId)).body.data[2];
    expect(third).toMatchObject({ status: 'discrepancy', taxCodes: [], totals: { outputVat: 0, netVat: 0, position: 'zero' } });
    expect(third.reconciliation).toMatchObject({ bookedOutputVat: 480, outputVatDifference: -480 });
    await importAndWait(companyId, 'general-ledger-lines/deletions', { year, ids: ['s6-vat'] });
    third = (await terms(companyId)).body.data[2];
    expect(third).toMatchObject({ status: 'no_activity', taxCodes: [], reconciliation: { bookedOutputVat: 0, accounts: [] } });

    // A line losing its tax code leaves the aggregates as well.
    await importAndWait(companyId, 'general-ledger-lines', { year, lines: [line('x1-rev', '3000', '-100.00', 10)] });
    expect(codesOf((await terms(companyId)).body.data[4])).toEqual(['3']);
  });

  it('annual filing: one term for the year, due 10 March of the next year; vatFrequency set with PATCH', async () => {
    const companyId = await newApiCompany();
    const patched = await api('PATCH', `/v1/companies/${companyId}`, { as: 'a-system', body: { vatFrequency: 'annual' } });
    expect(patched.body.vatFrequency).toBe('annual');
    await seedBooks(companyId);
    const { body } = await terms(companyId);
    expect(body.data).toHaveLength(1);
    const [annual] = body.data;
    expect(annual).toMatchObject({ year: 2024, term: 1, frequency: 'annual', fromDate: '2024-01-01', toDate: '2024-12-31', filingDueDate: '2025-03-10', status: 'discrepancy' });
    expect(annual.periods).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // Output 810 + 96 + 500 - 100 = 1306; input 700 + 126 = 826; booked output 810 + 96 + 480 - 100 = 1286.
    expect(annual.totals).toEqual({ outputVat: 1306, inputVat: 826, netVat: 480, position: 'payable' });
    expect(annual.reconciliation).toMatchObject({ bookedOutputVat: 1286, bookedInputVat: 826, outputVatDifference: 20, inputVatDifference: 0 });
    expect(codesOf(annual)).toEqual(['1', '11', '13', '3', '31', '33', '52', '6', '86', 'X9']);
    expect(annual.taxCodes.find((code: { taxCode: string }) => code.taxCode === '3')).toMatchObject({ lineCount: 3, basis: 2600, outputVat: 650 });

    // Back to bimonthly: the same books in six terms again.
    await api('PATCH', `/v1/companies/${companyId}`, { as: 'a-system', body: { vatFrequency: 'bimonthly' } });
    expect((await terms(companyId)).body.data).toHaveLength(6);
  });

  it('year omitted: the current accounting year (this year when it has a chart, else the latest before it; a chart pushed ahead is not current); a term not ended yet is open', () =>
    inThisNorwegianYear(async (thisYear) => {
      const companyId = await newApiCompany();
      await seedBooks(companyId);
      const omitted = await terms(companyId, '');
      expect(omitted.body.data[0]).toMatchObject({ year: 2024, status: 'reconciled', totals: { netVat: 110 } });

      const next = thisYear + 1;
      await importAndWait(companyId, 'accounts', chartOf(next, ['3000', '2700']));
      await importAndWait(companyId, 'general-ledger-lines', { year: next, lines: [{ id: 'future', accountCode: '3000', amount: '-100.00', period: 1, taxCode: '3', taxAmount: '-25.00' }] });
      // a chart pushed ahead for next year does not become current
      expect((await terms(companyId, '')).body.data[0]).toMatchObject({ year: 2024 });
      const ahead = await terms(companyId, `?year=${next}`);
      expect(ahead.body.data.map((t: { year: number; status: string }) => [t.year, t.status])).toEqual(Array.from({ length: 6 }, () => [next, 'open']));
      expect(ahead.body.data[0]).toMatchObject({ totals: { outputVat: 25, netVat: 25, position: 'payable' }, reconciliation: { outputVatDifference: 25 } });

      // a chart of this year makes it current; the term holding today has not ended: open
      await importAndWait(companyId, 'accounts', chartOf(thisYear, ['3000', '2700']));
      const current = await terms(companyId, '');
      expect(current.body.data.every((t: { year: number }) => t.year === thisYear)).toBe(true);
      const today = norwegianDate();
      expect(current.body.data.find((t: { fromDate: string; toDate: string }) => t.fromDate <= today && today <= t.toDate)).toMatchObject({ status: 'open' });
    }));

  it('answers 400 for a bad year or an unknown parameter, 404 outside the reach, 403 without vat:read', async () => {
    const companyId = await newApiCompany();
    for (const query of ['?year=abc', '?year=1899', '?year=2024.5', '?year=']) {
      const response = await api('GET', `/v1/companies/${companyId}/vat/terms${query}`, { as: 'a-system' });
      expectProblem(response, 400, 'validation_failed');
      expect(response.body.errors[0].field).toBe('year');
    }
    expectProblem(await api('GET', `/v1/companies/${companyId}/vat/terms?period=1`, { as: 'a-system' }), 400, 'validation_failed');

    expectProblem(await api('GET', `/v1/companies/${companyId}/vat/terms?year=2024`, { as: 'b-system' }), 404, 'not_found');
    expectProblem(await api('GET', '/v1/companies/not-a-uuid/vat/terms', { as: 'a-system' }), 404, 'not_found');
    expect((await api('GET', `/v1/companies/${companyId}/vat/terms?year=2024`, { as: 'a-readonly' })).status).toBe(200);

    testStack();
    const { client, clientSecret } = await createTestClient(
      { name: 'no-vat-scope', organizationId: seededClient('a-system').organizationId, scopes: ['companies:read', 'ledger:read'] }
    );
    const forbidden = await api('GET', `/v1/companies/${companyId}/vat/terms?year=2024`, { token: await tokenFor(client.clientId, clientSecret) });
    expectProblem(forbidden, 403, 'insufficient_scope');
    expect(forbidden.headers.get('www-authenticate')).toContain('vat:read');
  });
});
