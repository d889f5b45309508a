import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { formatAmount, parseJsonKeepingNumbers, stringifyJson } from '../../shared/platform/json';

describe('response JSON with decimal amounts', () => {
  it('writes amounts as JSON numbers with explicit decimals', () => {
    expect(stringifyJson({ amount: new Decimal('1250') })).toBe('{"amount":1250.00}');
    expect(stringifyJson({ amount: new Decimal('-0.5') })).toBe('{"amount":-0.50}');
    expect(stringifyJson([new Decimal('12345678901234.5678')])).toBe('[12345678901234.5678]');
  });

  it('keeps precision beyond what a JS number holds', () => {
    const text = stringifyJson({ big: new Decimal('98765432109876543.21') });
    expect(text).toBe('{"big":98765432109876543.21}');
    expect(text).not.toContain('e+');
  });

  it('keeps every decimal an amount has, padding to two, never through floats', () => {
    expect(formatAmount(new Decimal('0.125'))).toBe('0.125');
    expect(formatAmount(new Decimal('-0.1'))).toBe('-0.10');
    expect(formatAmount(new Decimal('1.005'))).toBe('1.005'); // a float would print 1.00499999...
    expect(formatAmount(new Decimal('1e-4'))).toBe('0.0001');
  });

  it('writes an amount of any Decimal constructor (a clone with other settings too)', () => {
    const Other = Decimal.clone({ precision: 5 });
    expect(stringifyJson({ amount: new Other('7.5') })).toBe('{"amount":7.50}');
  });

  it("takes no parsed JSON for an amount, whatever its fields (decimal.js's own isDecimal would)", () => {
    const lookalike = JSON.parse('{"toStringTag":"[object Decimal]","d":[1],"e":0,"s":1}') as unknown;
    expect(Decimal.isDecimal(lookalike)).toBe(true);
    expect(stringifyJson({ value: lookalike })).toBe('{"value":{"toStringTag":"[object Decimal]","d":[1],"e":0,"s":1}}');
  });

  it('leaves ordinary values and strings that look like markers alone', () => {
    const value = { n: 1, s: 'decimal:5', nested: { list: [true, null, 'x'] } };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });

  it('parses JSON keeping each number as written, for a serializer that is not ours (MCP structuredContent)', () => {
    const text = stringifyJson({ amount: new Decimal('123456789012345678.1234'), total: new Decimal('1250'), count: 3, rate: -0.5, text: '1.10', items: [new Decimal('0.10'), null, true] });
    expect(text).toBe('{"amount":123456789012345678.1234,"total":1250.00,"count":3,"rate":-0.5,"text":"1.10","items":[0.10,null,true]}');
    const parsed = parseJsonKeepingNumbers(text) as Record<string, unknown>;
    expect(JSON.stringify(parsed)).toBe(text);
    expect(JSON.stringify(JSON.parse(text))).not.toBe(text); // what a plain parse gives: 123456789012345680, 1250, 0.1
    expect(parsed.text).toBe('1.10');
  });
});
