import { describe, expect, it } from 'vitest';
import { generatePassword } from '../../shared/people/service';

describe('generated login passwords', () => {
  it('start with a letter (never a dash a command line would read as a flag) and hold every class the policy asks for', () => {
    // A base64url character is - with chance 1/64: a thousand passwords would show one.
    for (let i = 0; i < 1000; i++) {
      const password = generatePassword();
      expect(password).toMatch(/^[A-Za-z]/);
      expect(password).toMatch(/[a-z]/);
      expect(password).toMatch(/[A-Z]/);
      expect(password).toMatch(/\d/);
      expect(password).toMatch(/[^A-Za-z0-9]/);
      expect(password.length).toBeGreaterThanOrEqual(20);
    }
  });
});
