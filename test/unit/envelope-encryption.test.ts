import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { envelope, isSealed, kmsDataKeyProvider, localDataKeyProvider } from '../../shared/platform/envelope-encryption';

/**
 * A stand-in of the KMS API for the SDK client's `send`: data keys wrapped under a key of its own,
 * the encryption context bound as GCM additional data (KMS refuses a Decrypt whose context differs
 * from the GenerateDataKey's, as this does). It records every command.
 */
const fakeKms = () => {
  const master = randomBytes(32);
  const sent: (GenerateDataKeyCommand | DecryptCommand)[] = [];
  const aad = (context: Record<string, string> | undefined) => Buffer.from(JSON.stringify(Object.entries(context ?? {}).sort()));
  const send = async (command: GenerateDataKeyCommand | DecryptCommand) => {
    sent.push(command);
    if (command instanceof GenerateDataKeyCommand) {
      const plaintext = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', master, iv).setAAD(aad(command.input.EncryptionContext));
      const blob = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return { Plaintext: new Uint8Array(plaintext), CiphertextBlob: new Uint8Array(blob), KeyId: command.input.KeyId };
    }
    const blob = Buffer.from(command.input.CiphertextBlob!);
    const decipher = createDecipheriv('aes-256-gcm', master, blob.subarray(0, 12)).setAAD(aad(command.input.EncryptionContext));
    decipher.setAuthTag(blob.subarray(blob.length - 16));
    try {
      return { Plaintext: new Uint8Array(Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()])) };
    } catch {
      throw Object.assign(new Error('InvalidCiphertextException'), { name: 'InvalidCiphertextException' });
    }
  };
  return { client: { send } as unknown as Pick<KMSClient, 'send'>, sent };
};

const context = { purpose: 'webhook-signing-secret', organizationId: 'org-1', subscriptionId: 'sub-1' };
const secret = `whsec_${randomBytes(32).toString('base64')}`;

describe('envelope encryption under KMS', () => {
  it('seals with a fresh AES-256 data key from GenerateDataKey under the key and context, and opens with Decrypt', async () => {
    const kms = fakeKms();
    const box = envelope(kmsDataKeyProvider('arn:aws:kms:eu-north-1:123456789012:key/k', kms.client));
    const sealed = await box.seal(secret, context);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(secret.slice('whsec_'.length));
    const generate = kms.sent[0] as GenerateDataKeyCommand;
    expect(generate).toBeInstanceOf(GenerateDataKeyCommand);
    expect(generate.input).toEqual({ KeyId: 'arn:aws:kms:eu-north-1:123456789012:key/k', KeySpec: 'AES_256', EncryptionContext: context });

    // Another execution environment (an empty cache) opens it through KMS Decrypt with the same context.
    const elsewhere = envelope(kmsDataKeyProvider('arn:aws:kms:eu-north-1:123456789012:key/k', kms.client));
    expect(await elsewhere.open(sealed, context)).toBe(secret);
    const decrypt = kms.sent.at(-1) as DecryptCommand;
    expect(decrypt).toBeInstanceOf(DecryptCommand);
    expect(decrypt.input.EncryptionContext).toEqual(context);
    expect(decrypt.input.KeyId).toBe('arn:aws:kms:eu-north-1:123456789012:key/k');
  });

  it('two seals of the same secret differ (new data key and iv each time)', async () => {
    const box = envelope(kmsDataKeyProvider('k', fakeKms().client));
    expect(await box.seal(secret, context)).not.toBe(await box.seal(secret, context));
  });

  it('a sealed value moved to another subscription or organization does not open, with or without the cached key', async () => {
    const kms = fakeKms();
    const sealed = await envelope(kmsDataKeyProvider('k', kms.client)).seal(secret, context);
    for (const moved of [{ ...context, subscriptionId: 'sub-2' }, { ...context, organizationId: 'org-2' }, { ...context, purpose: 'idempotent-answer' }]) {
      await expect(envelope(kmsDataKeyProvider('k', kms.client)).open(sealed, moved)).rejects.toThrow();
    }
    // The sealing environment holds the data key, yet the GCM additional data still binds the context.
    const box = envelope(kmsDataKeyProvider('k', kms.client));
    const own = await box.seal(secret, context);
    await expect(box.open(own, { ...context, subscriptionId: 'sub-2' })).rejects.toThrow();
  });

  it('a tampered value does not open', async () => {
    const box = envelope(kmsDataKeyProvider('k', fakeKms().client));
    const sealed = await box.seal(secret, context);
    const last = sealed.at(-2) === 'A' ? 'B' : 'A';
    await expect(box.open(`${sealed.slice(0, -2)}${last}${sealed.at(-1)}`, context)).rejects.toThrow();
    await expect(box.open('sealed:v1:garbage', context)).rejects.toThrow();
    await expect(box.open(secret, context)).rejects.toThrow(/Not a sealed value/);
  });

  it('keeps unwrapped data keys in a bounded cache: one Decrypt per value while cached, again when evicted or expired', async () => {
    const kms = fakeKms();
    const sealer = envelope(kmsDataKeyProvider('k', kms.client));
    const contexts = ['a', 'b', 'c'].map((id) => ({ ...context, subscriptionId: id }));
    const values = await Promise.all(contexts.map((c) => sealer.seal(`secret-${c.subscriptionId}`, c)));
    let clock = 0;
    const box = envelope(kmsDataKeyProvider('k', kms.client), { maxEntries: 2, maxAgeMs: 1000, now: () => clock });
    const decrypts = () => kms.sent.filter((command) => command instanceof DecryptCommand).length;

    expect(await box.open(values[0]!, contexts[0]!)).toBe('secret-a');
    expect(await box.open(values[0]!, contexts[0]!)).toBe('secret-a');
    expect(decrypts()).toBe(1);
    await box.open(values[1]!, contexts[1]!);
    await box.open(values[2]!, contexts[2]!); // evicts a (at most 2)
    expect(decrypts()).toBe(3);
    await box.open(values[0]!, contexts[0]!);
    expect(decrypts()).toBe(4);
    clock = 1500; // past maxAge
    await box.open(values[0]!, contexts[0]!);
    expect(decrypts()).toBe(5);
  });
});

describe('the local key provider', () => {
  it('seals and opens like KMS, binds the context, and needs the same 256-bit key', async () => {
    const key = randomBytes(32);
    const sealed = await envelope(localDataKeyProvider(key)).seal(secret, context);
    expect(await envelope(localDataKeyProvider(key)).open(sealed, context)).toBe(secret);
    await expect(envelope(localDataKeyProvider(key)).open(sealed, { ...context, subscriptionId: 'sub-2' })).rejects.toThrow();
    await expect(envelope(localDataKeyProvider(randomBytes(32))).open(sealed, context)).rejects.toThrow();
    expect(() => localDataKeyProvider(randomBytes(16))).toThrow(/256 bits/);
  });
});
