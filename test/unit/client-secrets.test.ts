import { scryptSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deployedScryptCost, hashSecret, verifySecret, verifySecretOrNone } from '../../shared/identity/client-secrets';

const saved = process.env.SECRET_HASH_SCRYPT_COST;
afterEach(() => {
  if (saved === undefined) delete process.env.SECRET_HASH_SCRYPT_COST;
  else process.env.SECRET_HASH_SCRYPT_COST = saved;
});

describe('secret hashes', () => {
  it('as deployed: scrypt with N = 16384 (Node default), stored as scrypt$<salt>$<hash>', async () => {
    delete process.env.SECRET_HASH_SCRYPT_COST;
    const stored = await hashSecret('correct horse');
    const [scheme, salt, hash, ...rest] = stored.split('$');
    expect({ scheme, rest }).toEqual({ scheme: 'scrypt', rest: [] });
    expect(deployedScryptCost).toBe(16_384);
    expect(scryptSync('correct horse', Buffer.from(salt!, 'base64url'), 32, { N: 16_384 }).toString('base64url')).toBe(hash);
    expect(await verifySecret('correct horse', stored)).toBe(true);
    expect(await verifySecret('correct horsf', stored)).toBe(false);
  });

  it('a lower cost (the test suite sets SECRET_HASH_SCRYPT_COST) is stored with the hash, and verification uses it', async () => {
    process.env.SECRET_HASH_SCRYPT_COST = '1024';
    const stored = await hashSecret('s3cret');
    const [, salt, hash, cost] = stored.split('$');
    expect(cost).toBe('1024');
    expect(scryptSync('s3cret', Buffer.from(salt!, 'base64url'), 32, { N: 1024 }).toString('base64url')).toBe(hash);
    delete process.env.SECRET_HASH_SCRYPT_COST;
    expect(await verifySecret('s3cret', stored)).toBe(true);
    expect(await verifySecret('s3cret!', stored)).toBe(false);
    // The cost is part of what is verified: the same hash under another cost does not match.
    expect(await verifySecret('s3cret', `scrypt$${salt}$${hash}$2048`)).toBe(false);
  });

  it('refuses costs that are not a power of two from 1024 to 16384, in the environment and in a stored hash', async () => {
    for (const cost of ['16', '1000', '32768', 'abc']) {
      process.env.SECRET_HASH_SCRYPT_COST = cost;
      expect((await hashSecret('x')).split('$')).toHaveLength(3); // the deployed cost
    }
    delete process.env.SECRET_HASH_SCRYPT_COST;
    const [, salt, hash] = (await hashSecret('x')).split('$');
    for (const cost of ['16', '1000', '32768', '', 'abc']) expect(await verifySecret('x', `scrypt$${salt}$${hash}$${cost}`)).toBe(false);
    expect(await verifySecret('x', `scrypt$${salt}$${hash}$1024$extra`)).toBe(false);
    expect(await verifySecret('x', `bcrypt$${salt}$${hash}`)).toBe(false);
  });
});

describe('checking a secret when nothing is stored (an unknown client id or e-mail address)', () => {
  /** The hash's shape: scheme, salt and hash lengths, cost. */
  const shape = (stored: string) => stored.split('$').map((part, i) => (i === 0 || i === 3 ? part : part.length));

  it('checks it against a dummy hash of the cost of new hashes (scrypt runs, as for a known one) and refuses it', async () => {
    for (const cost of [undefined, '1024']) {
      if (cost === undefined) delete process.env.SECRET_HASH_SCRYPT_COST;
      else process.env.SECRET_HASH_SCRYPT_COST = cost;
      const verify = vi.fn(verifySecret);
      expect(await verifySecretOrNone('any secret', undefined, verify)).toBe(false);
      expect(verify).toHaveBeenCalledTimes(1);
      const dummy = verify.mock.calls[0]![1];
      // Shaped as a real hash of this cost, so verifySecret gets past its checks to scrypt.
      expect(shape(dummy)).toEqual(shape(await hashSecret('x')));
      expect(await verifySecret('', dummy)).toBe(false);
    }
  });

  it('with a stored hash, is verifySecret', async () => {
    const stored = await hashSecret('correct horse');
    expect(await verifySecretOrNone('correct horse', stored)).toBe(true);
    expect(await verifySecretOrNone('correct horsf', stored)).toBe(false);
  });
});
