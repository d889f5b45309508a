/**
 * The login password policy: the Cognito user pool is deployed with it (infra/stacks/stateful-stack.ts)
 * and create-user checks a given password against it before anything is written, on either stack.
 */
export const passwordPolicy = {
  minLength: 16,
  requireLowercase: true,
  requireUppercase: true,
  requireDigits: true,
  requireSymbols: true,
} as const;

/** Cognito's upper bound of a password's length (whatever the policy). */
const maxLength = 256;

/** What Cognito counts as a symbol; a space counts too, where it is not leading or trailing (Cognito refuses those). */
const symbols = '^$*.[]{}()?-"!@#%&/\\,><\':;|_~`=+ ';

/** What a password lacks under the policy, in words (empty when it satisfies it). */
export const passwordProblems = (password: string): string[] => {
  const length = [...password].length;
  const has = (test: (character: string) => boolean) => [...password].some(test);
  return [
    length < passwordPolicy.minLength && `at least ${passwordPolicy.minLength} characters (it has ${length})`,
    length > maxLength && `at most ${maxLength} characters (it has ${length})`,
    password.trim() !== password && 'no leading or trailing space',
    passwordPolicy.requireLowercase && !has((c) => c >= 'a' && c <= 'z') && 'a lowercase letter (a-z)',
    passwordPolicy.requireUppercase && !has((c) => c >= 'A' && c <= 'Z') && 'an uppercase letter (A-Z)',
    passwordPolicy.requireDigits && !has((c) => c >= '0' && c <= '9') && 'a digit (0-9)',
    passwordPolicy.requireSymbols && !has((c) => symbols.includes(c)) && `a symbol (one of ${symbols.trimEnd()} or a space inside)`,
  ].filter((problem): problem is string => typeof problem === 'string');
};
