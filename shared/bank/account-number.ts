/** Norwegian bank account numbers (11 digits, modulus-11) and IBANs (ISO 13616, mod-97). */

const accountWeights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];

/**
 * Norwegian bank account number: 11 digits (spaces and dots allowed in input, e.g. '1503.12.34567'),
 * mod-11 check digit with weights 5,4,3,2,7,6,5,4,3,2; remainder 0 => check 0, remainder 1 => invalid.
 * Returns the 11 digits, or null when there are not 11 digits or the check digit is wrong.
 */
export const normalizeNorwegianAccountNumber = (text: string): string | null => {
  const digits = text.replace(/[\s.]/g, '');
  if (!/^\d{11}$/.test(digits)) return null;
  const sum = accountWeights.reduce((total, weight, i) => total + weight * Number(digits[i]), 0);
  const remainder = sum % 11;
  if (remainder === 1) return null;
  const check = remainder === 0 ? 0 : 11 - remainder;
  return check === Number(digits[10]) ? digits : null;
};

export const isValidNorwegianAccountNumber = (text: string): boolean => normalizeNorwegianAccountNumber(text) !== null;

/** The IBAN remainder mod 97 of country + check digits + BBAN, letters as 10..35, moved to the end. */
const ibanRemainder = (iban: string): number => {
  let remainder = 0;
  for (const char of iban.slice(4) + iban.slice(0, 4)) {
    const value = char >= 'A' && char <= 'Z' ? String(char.charCodeAt(0) - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder;
};

/**
 * IBAN: ISO 13616 mod-97 check (spaces allowed, upper-cased). Returns the IBAN without spaces,
 * or null when it is malformed or the check digits are wrong. A Norwegian IBAN must be
 * 'NO' + 2 check digits + an 11-digit BBAN.
 */
export const normalizeIban = (text: string): string | null => {
  const iban = text.replace(/\s/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return null;
  if (iban.startsWith('NO') && !/^NO\d{13}$/.test(iban)) return null;
  return ibanRemainder(iban) === 1 ? iban : null;
};

/** The 11-digit BBAN of a valid Norwegian IBAN (whose BBAN also passes mod-11), else null. */
export const norwegianAccountNumberOfIban = (iban: string): string | null => {
  const normalized = normalizeIban(iban);
  if (!normalized?.startsWith('NO')) return null;
  return normalizeNorwegianAccountNumber(normalized.slice(4));
};

/** The Norwegian IBAN of an account number; throws a RangeError when the account number is not valid. */
export const ibanOfNorwegianAccountNumber = (accountNumber: string): string => {
  const bban = normalizeNorwegianAccountNumber(accountNumber);
  if (bban === null) throw new RangeError(`Not a valid Norwegian account number: "${accountNumber}"`);
  const check = 98 - ibanRemainder(`NO00${bban}`);
  return `NO${String(check).padStart(2, '0')}${bban}`;
};
