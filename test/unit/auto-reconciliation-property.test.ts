import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchPairs, windowDays } from '../../shared/bank/auto-reconciliation';
import { Decimal, toStoredNumber } from '../../shared/platform/money';

/** The matching rule of auto-reconciliation, over random transactions and lines. */

const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10);
const dayOf = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
/** A few amounts, so that equal amounts (and so ambiguity) are common; stored as the table stores them. */
const amount = fc.constantFrom('100.00', '100', '-250.50', '-250.5', '42.10', '999.99', '0.01').map((text) => toStoredNumber(new Decimal(text)));

const transaction = fc.record({ amount, bookingDay: fc.integer({ min: 0, max: 40 }), valueShift: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }) });
const line = fc.record({ amount, dateDay: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }) });

const world = fc.record({ transactions: fc.array(transaction, { maxLength: 25 }), lines: fc.array(line, { maxLength: 25 }) }).map(({ transactions, lines }) => ({
  transactions: transactions.map((t, i) => ({
    id: `t${i}`,
    amount: t.amount,
    bookingDate: day(t.bookingDay),
    ...(t.valueShift !== undefined && { valueDate: day(t.bookingDay + t.valueShift) }),
  })),
  lines: lines.map((l, i) => ({ lineId: `l${i}`, amount: l.amount, ...(l.dateDay !== undefined && { transactionDate: day(l.dateDay) }) })),
}));

type Tx = { id: string; amount: unknown; bookingDate: string; valueDate?: string };
type Line = { lineId: string; amount: unknown; transactionDate?: string };

const sameAmount = (a: unknown, b: unknown) => new Decimal(String(a)).equals(new Decimal(String(b)));
const near = (t: Tx, l: Line) =>
  l.transactionDate !== undefined && [t.bookingDate, t.valueDate].some((date) => date !== undefined && Math.abs(dayOf(date) - dayOf(l.transactionDate!)) <= windowDays);
const candidates = (t: Tx, lines: Line[]) => lines.filter((l) => sameAmount(t.amount, l.amount) && near(t, l));

describe('auto-reconciliation matching rule', () => {
  it('pairs only equal amounts within the window, each member at most once, and exactly the mutual single candidates', () => {
    fc.assert(
      fc.property(world, ({ transactions, lines }) => {
        const { pairs, ambiguous } = matchPairs(transactions, lines);
        for (const [t, l] of pairs) {
          expect(sameAmount(t.amount, l.amount)).toBe(true);
          expect(near(t, l)).toBe(true);
        }
        expect(new Set(pairs.map(([t]) => t.id)).size).toBe(pairs.length);
        expect(new Set(pairs.map(([, l]) => l.lineId)).size).toBe(pairs.length);
        // the reference: a transaction with one candidate line that has it as its one candidate
        const expected = transactions.flatMap((t) => {
          const mine = candidates(t, lines);
          if (mine.length !== 1) return [];
          const theirs = transactions.filter((other) => candidates(other, [mine[0]!]).length === 1);
          return theirs.length === 1 ? [`${t.id}:${mine[0]!.lineId}`] : [];
        });
        expect(pairs.map(([t, l]) => `${t.id}:${l.lineId}`)).toEqual(expected);
        expect(ambiguous).toBe(transactions.filter((t) => candidates(t, lines).length > 0).length - pairs.length);
      }),
      { numRuns: 300 },
    );
  });

  it('ignores lines without a transaction date, and dates one day outside the window', () => {
    const stored = toStoredNumber(new Decimal('10.00'));
    const transactions = [{ id: 't', amount: stored, bookingDate: '2026-03-10' }];
    expect(matchPairs(transactions, [{ lineId: 'l', amount: stored }]).pairs).toEqual([]);
    expect(matchPairs(transactions, [{ lineId: 'l', amount: stored, transactionDate: '2026-03-14' }]).pairs).toEqual([]);
    expect(matchPairs(transactions, [{ lineId: 'l', amount: stored, transactionDate: '2026-03-13' }]).pairs).toHaveLength(1);
  });
});
