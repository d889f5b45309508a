import { describe, expect, it } from 'vitest';
import { passwordPolicy, passwordProblems } from '../../shared/identity/password-policy';
import { generatePassword } from '../../shared/people/service';

describe('the login password policy (the user pool is deployed with it)', () => {
  it.each([
    ['too short', 'Short-Pass-1', /^at least 16 characters \(it has 12\)$/],
    ['no lowercase letter', 'CORRECT-HORSE-BATTERY-1', /lowercase letter/],
    ['no uppercase letter', 'correct-horse-battery-1', /uppercase letter/],
    ['no digit', 'Correct-Horse-Battery', /digit/],
    ['no symbol', 'CorrectHorseBattery1', /symbol/],
    ['a trailing space', 'Correct-Horse-Battery-1 ', /leading or trailing space/],
    ['over 256 characters', `Aa1-${'x'.repeat(253)}`, /at most 256 characters/],
  ])('names what a password lacks: %s', (_what, password, problem) => {
    const problems = passwordProblems(password);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it('takes a password with every class, a space inside counting as a symbol', () => {
    expect(passwordProblems('Correct-Horse-Battery-1')).toEqual([]);
    expect(passwordProblems('Correct Horse Battery 1')).toEqual([]);
    expect(passwordPolicy.minLength).toBe(16);
  });

  it('is met by every generated password', () => {
    for (let i = 0; i < 1000; i++) expect(passwordProblems(generatePassword())).toEqual([]);
  });
});
