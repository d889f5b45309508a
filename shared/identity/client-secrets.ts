import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const keyLength = 32;

/** 26 lower-case alphanumerics, shaped like a Cognito app client id. */
export const generateClientId = (): string => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(26), (byte) => alphabet[byte % alphabet.length]).join('');
};

export const generateClientSecret = (): string => randomBytes(36).toString('base64url');

/** scrypt with a per-secret salt; stored as `scrypt$<salt>$<hash>`. */
export const hashSecret = async (secret: string): Promise<string> => {
  const salt = randomBytes(16);
  const hash = await scryptAsync(secret, salt, keyLength);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
};

export const verifySecret = async (secret: string, stored: string): Promise<boolean> => {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length);
  return timingSafeEqual(actual, expected);
};
