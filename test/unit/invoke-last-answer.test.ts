import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fromLastAnswer } from '../../infra/tools/invoke';

/** `npm run invoke -- ... --set NAME=@last.PATH`: a value of the previous answer, as it was answered. */
describe('invoke: --set NAME=@last.PATH', () => {
  const dir = mkdtempSync(join(tmpdir(), 'invoke-last-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("takes an amount's text, every digit and its decimals, not a JS number's; integers and strings as they are", () => {
    const file = join(dir, 'invoke-last.json');
    writeFileSync(file, '{"year": 2026, "totals": {"closingBalance": 0.00}, "data": [{"id": "a", "amount": 12345678901234567.89, "period": 3}]}\n');
    expect(fromLastAnswer(file, '@last.data.0.amount')).toBe('12345678901234567.89');
    expect(fromLastAnswer(file, '@last.totals.closingBalance')).toBe('0.00');
    expect(fromLastAnswer(file, '@last.data.0.period')).toBe('3');
    expect(fromLastAnswer(file, '@last.year')).toBe('2026');
    expect(fromLastAnswer(file, '@last.data.0.id')).toBe('a');
    expect(() => fromLastAnswer(file, '@last.data.0')).toThrow('the previous answer has no value at data.0');
  });
});
