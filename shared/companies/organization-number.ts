/** Norwegian organization number: nine digits, the last a modulus-11 check digit (weights 3 2 7 6 5 4 3 2). */
const weights = [3, 2, 7, 6, 5, 4, 3, 2];

export const isValidOrganizationNumber = (value: string): boolean => {
  if (!/^\d{9}$/.test(value)) return false;
  const digits = [...value].map(Number);
  const sum = weights.reduce((total, weight, i) => total + weight * digits[i]!, 0);
  const remainder = sum % 11;
  const check = remainder === 0 ? 0 : 11 - remainder;
  return check !== 10 && check === digits[8];
};

/** Completes eight digits with their check digit; undefined where no valid check digit exists. */
export const withCheckDigit = (eightDigits: string): string | undefined => {
  for (let check = 0; check <= 9; check++) {
    if (isValidOrganizationNumber(`${eightDigits}${check}`)) return `${eightDigits}${check}`;
  }
  return undefined;
};
