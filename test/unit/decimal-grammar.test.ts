import { LosslessNumber } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { decimalStringPattern, readAmount } from '../../shared/platform/money';

/** The one decimal grammar of request text (shared/platform/money.ts) and its bounds. */
describe('decimal strings: one strict grammar', () => {
  it('accepts an optional minus, digits, and optionally a point with 1 to 4 digits', () => {
    for (const text of ['0', '-0', '12', '-12', '0.5', '-0.0001', '1250.50', '999999999999999999.9999', '-999999999999999999.9999', '007']) {
      const read = readAmount(text);
      expect(read, text).toHaveProperty('amount');
      if ('amount' in read) expect(read.amount.equals(text)).toBe(true);
    }
  });

  it('refuses blanks, a plus sign, a bare point, other digits and separators', () => {
    for (const text of [' 12', '12 ', '\t12', '+5', '.5', '5.', '-.5', '-', '', '1,5', '1_000', '0x10', 'NaN', 'Infinity', '١٢', '１２', '1.2.3', '--1', '12\u0000', '1\u202e2']) {
      expect(readAmount(text), JSON.stringify(text)).toEqual({ problem: 'not_a_decimal' });
    }
    for (const text of ['1e2', '-1.5E1', '2.5e+1']) expect(readAmount(text), text).toEqual({ problem: 'exponent_in_string' });
  });

  it('bounds a string by its digits: at most 4 after the point (trailing zeros count) and 18 before it', () => {
    expect(readAmount('1.00001')).toEqual({ problem: 'too_many_decimals' });
    expect(readAmount('1.50000')).toEqual({ problem: 'too_many_decimals' });
    expect(readAmount('1000000000000000000')).toEqual({ problem: 'too_many_integer_digits' });
    expect(readAmount('0000000000000000001')).toEqual({ problem: 'too_many_integer_digits' });
  });

  it('judges JSON numbers on their value, as before: an exponent and trailing zeros are allowed', () => {
    const read = (text: string) => readAmount(new LosslessNumber(text));
    expect(read('1e2')).toHaveProperty('amount');
    expect(read('1.50000')).toHaveProperty('amount');
    expect(read('1e-5')).toEqual({ problem: 'too_many_decimals' });
    expect(read('1E19')).toEqual({ problem: 'too_many_integer_digits' });
    expect(read('1e126')).toEqual({ problem: 'too_many_integer_digits' });
  });

  it('the OpenAPI pattern says the same as the grammar for strings within the bounds', () => {
    const pattern = new RegExp(decimalStringPattern);
    for (const text of ['0', '-12.5', '999999999999999999.9999', ' 12', '+5', '.5', '5.', '1.00001', '1000000000000000000', '1e2']) {
      expect(pattern.test(text), text).toBe('amount' in readAmount(text));
    }
  });
});
