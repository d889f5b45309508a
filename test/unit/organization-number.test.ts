import { describe, expect, it } from 'vitest';
import { isValidOrganizationNumber, withCheckDigit } from '../../shared/companies/organization-number';

describe('Norwegian organization number (mod 11)', () => {
  it.each(['923609016', '974760673', '985399077'])('accepts %s', (value) => {
    expect(isValidOrganizationNumber(value)).toBe(true);
  });

  it.each(['923609017', '92360901', '9236090160', '92360901a', ''])('rejects %s', (value) => {
    expect(isValidOrganizationNumber(value)).toBe(false);
  });

  it('completes eight digits with the check digit, or refuses where the remainder gives 10', () => {
    expect(withCheckDigit('92360901')).toBe('923609016');
    const eights = Array.from({ length: 200 }, (_, i) => String(10_000_000 + i * 4_999));
    for (const digits of eights) {
      const complete = withCheckDigit(digits);
      if (complete) expect(isValidOrganizationNumber(complete)).toBe(true);
    }
    expect(eights.some((digits) => withCheckDigit(digits) === undefined)).toBe(true);
  });
});
