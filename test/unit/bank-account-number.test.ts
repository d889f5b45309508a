import { describe, expect, it } from 'vitest';
import {
  ibanOfNorwegianAccountNumber,
  isValidNorwegianAccountNumber,
  normalizeIban,
  normalizeNorwegianAccountNumber,
  norwegianAccountNumberOfIban,
} from '../../shared/bank/account-number';

describe('Norwegian bank account number (mod 11, weights 5 4 3 2 7 6 5 4 3 2)', () => {
  it.each([
    ['86011117947', '86011117947'],
    ['1503.12.34562', '15031234562'],
    ['1503 12 34562', '15031234562'],
    ['15039876547', '15039876547'],
    ['3000 24 56784', '30002456784'],
    // remainder 0 => check digit 0
    ['15031234570', '15031234570'],
  ])('accepts %s as %s', (input, normalized) => {
    expect(normalizeNorwegianAccountNumber(input)).toBe(normalized);
    expect(isValidNorwegianAccountNumber(input)).toBe(true);
  });

  it.each([
    ['a wrong check digit', '86011117948'],
    ['a wrong check digit', '15031234563'],
    ['10 digits', '8601111794'],
    ['12 digits', '860111179470'],
    ['letters', '8601111794A'],
    ['other separators', '1503-12-34562'],
    ['an empty string', ''],
  ])('rejects %s (%s)', (_why, input) => {
    expect(normalizeNorwegianAccountNumber(input)).toBeNull();
    expect(isValidNorwegianAccountNumber(input)).toBe(false);
  });

  it('rejects every number whose first ten digits leave remainder 1 (no check digit exists)', () => {
    // 5*9+4*7+3*1+2*0+7*1+6*1+5*2+4*2+3*3+2*3 = 122 = 11*11 + 1
    for (let check = 0; check <= 9; check++) {
      expect(isValidNorwegianAccountNumber(`9710112233${check}`)).toBe(false);
      expect(isValidNorwegianAccountNumber(`1254067890${check}`)).toBe(false);
    }
  });

  it('finds exactly one valid check digit when the remainder is not 1', () => {
    const valid = Array.from({ length: 10 }, (_, check) => `1503123456${check}`).filter(isValidNorwegianAccountNumber);
    expect(valid).toEqual(['15031234562']);
  });
});

describe('IBAN (ISO 13616 mod 97)', () => {
  it.each([
    ['NO9386011117947', 'NO9386011117947'],
    ['NO93 8601 1117 947', 'NO9386011117947'],
    ['no93 8601 1117 947', 'NO9386011117947'],
    ['NO72 1503 1234 562', 'NO7215031234562'],
    ['GB82 WEST 1234 5698 7654 32', 'GB82WEST12345698765432'],
    ['DE89 3704 0044 0532 0130 00', 'DE89370400440532013000'],
  ])('accepts %s as %s', (input, normalized) => {
    expect(normalizeIban(input)).toBe(normalized);
  });

  it.each([
    ['wrong check digits', 'NO9486011117947'],
    ['a changed BBAN digit', 'NO9386011117948'],
    ['a Norwegian IBAN of the wrong length', 'NO938601111794'],
    ['letters in a Norwegian BBAN', 'NO93860111179A7'],
    ['no country code', '9386011117947'],
    ['too short', 'NO93'],
    ['an empty string', ''],
  ])('rejects %s (%s)', (_why, input) => {
    expect(normalizeIban(input)).toBeNull();
  });

  it('gives the BBAN of a valid Norwegian IBAN only', () => {
    expect(norwegianAccountNumberOfIban('NO93 8601 1117 947')).toBe('86011117947');
    expect(norwegianAccountNumberOfIban('NO7215031234562')).toBe('15031234562');
    expect(norwegianAccountNumberOfIban('NO9486011117947')).toBeNull(); // bad mod 97
    expect(norwegianAccountNumberOfIban('DE89370400440532013000')).toBeNull(); // not Norwegian
  });

  it('refuses a Norwegian IBAN whose mod 97 holds but whose BBAN fails mod 11', () => {
    // 86011117948 has a wrong mod-11 check digit; compute IBAN check digits for it by hand (mod 97 only)
    const bban = '86011117948';
    const numeric = BigInt(`${bban}232400`);
    const iban = `NO${String(98n - (numeric % 97n)).padStart(2, '0')}${bban}`;
    expect(normalizeIban(iban)).toBe(iban);
    expect(norwegianAccountNumberOfIban(iban)).toBeNull();
  });

  it('computes the IBAN of a BBAN and round-trips', () => {
    expect(ibanOfNorwegianAccountNumber('86011117947')).toBe('NO9386011117947');
    expect(ibanOfNorwegianAccountNumber('1503.12.34562')).toBe('NO7215031234562');
    expect(ibanOfNorwegianAccountNumber('30002456784')).toBe('NO1230002456784');
    for (const bban of ['15039876547', '15064012344', '12065588127', '60110543215', '15031234570', '63450618820']) {
      const iban = ibanOfNorwegianAccountNumber(bban);
      expect(normalizeIban(iban)).toBe(iban);
      expect(norwegianAccountNumberOfIban(iban)).toBe(bban);
    }
  });

  it('refuses to compute the IBAN of an invalid account number', () => {
    expect(() => ibanOfNorwegianAccountNumber('86011117948')).toThrow('Not a valid Norwegian account number: "86011117948"');
  });
});
