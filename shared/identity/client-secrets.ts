import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: ScryptOptions) => Promise<Buffer>;
const keyLength = 32;

/** scrypt's cost (N) as deployed: Node's default. */
export const deployedScryptCost = 16_384;
/** The lowest cost a hash may carry (the test suite's, which hashes hundreds of secrets per run). */
const minimumScryptCost = 1024;

const isAllowedCost = (cost: number) => Number.isInteger(cost) && cost >= minimumScryptCost && cost <= deployedScryptCost && (cost & (cost - 1)) === 0;

/** The cost of new hashes: SECRET_HASH_SCRYPT_COST (a power of two from 1024 up; only the test suite sets it), else as deployed. */
const newHashCost = (): number => {
  const configured = Number(process.env.SECRET_HASH_SCRYPT_COST);
  return isAllowedCost(configured) ? configured : deployedScryptCost;
};

/** 26 lower-case alphanumerics, shaped like a Cognito app client id. */
export const generateClientId = (): string => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(26), (byte) => alphabet[byte % alphabet.length]).join('');
};

export const generateClientSecret = (): string => randomBytes(36).toString('base64url');

/** scrypt with a per-secret salt; stored as `scrypt$<salt>$<hash>`, with `$<cost>` appended when the cost is not the deployed one. */
export const hashSecret = async (secret: string): Promise<string> => {
  const salt = randomBytes(16);
  const cost = newHashCost();
  const hash = await scryptAsync(secret, salt, keyLength, { N: cost });
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}${cost === deployedScryptCost ? '' : `$${cost}`}`;
};

export const verifySecret = async (secret: string, stored: string): Promise<boolean> => {
  const [scheme, salt, hash, costText, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash || rest.length > 0) return false;
  const cost = costText === undefined ? deployedScryptCost : Number(costText);
  if (!isAllowedCost(cost)) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length, { N: cost });
  return timingSafeEqual(actual, expected);
};

/**
 * A hash no secret matches, at the cost of new hashes: what a secret is checked against when there
 * is nothing to check it against (no such client or person), so the time taken does not tell.
 */
const dummySecretHash = (): string => {
  const cost = newHashCost();
  return `scrypt$${'A'.repeat(22)}$${'A'.repeat(43)}${cost === deployedScryptCost ? '' : `$${cost}`}`;
};

/**
 * verifySecret, also when nothing is stored (`stored` undefined: an unknown or inactive client or
 * person): then the secret is checked against a dummy hash and refused, taking as long as a real
 * check, so the answer's time does not reveal which client ids or e-mail addresses exist.
 */
export const verifySecretOrNone = async (secret: string, stored: string | undefined, verify: typeof verifySecret = verifySecret): Promise<boolean> => {
  const matched = await verify(secret, stored ?? dummySecretHash());
  return stored !== undefined && matched;
};
