import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { config } from './config';

/**
 * Envelope encryption of small secrets stored in DynamoDB (webhook signing secrets, the idempotent
 * answers that carry one): each value is sealed with AES-256-GCM under a fresh 256-bit data key;
 * the data key is stored beside it, encrypted under a key-encryption key (a KMS key on AWS, a
 * local key in the local stack). The encryption context names what the value belongs to: it is
 * the KMS encryption context of the data key and the GCM additional data, so a sealed value moved
 * to another item does not open.
 */
export type EncryptionContext = Readonly<Record<string, string>>;

/** Makes and unwraps data keys: KMS on AWS, a local key in the local stack (same interface). */
export interface DataKeyProvider {
  generateDataKey(context: EncryptionContext): Promise<{ plaintext: Uint8Array; encrypted: Uint8Array }>;
  decryptDataKey(encrypted: Uint8Array, context: EncryptionContext): Promise<Uint8Array>;
}

/** KMS GenerateDataKey / Decrypt under one key (its id or ARN). */
export const kmsDataKeyProvider = (keyId: string, client: Pick<KMSClient, 'send'>): DataKeyProvider => ({
  async generateDataKey(context) {
    const answer = await client.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: { ...context } }));
    if (!answer.Plaintext || !answer.CiphertextBlob) throw new Error('KMS GenerateDataKey answered no key');
    return { plaintext: answer.Plaintext, encrypted: answer.CiphertextBlob };
  },
  async decryptDataKey(encrypted, context) {
    const answer = await client.send(new DecryptCommand({ KeyId: keyId, CiphertextBlob: encrypted, EncryptionContext: { ...context } }));
    if (!answer.Plaintext) throw new Error('KMS Decrypt answered no key');
    return answer.Plaintext;
  },
});

/** The local stand-in of KMS: data keys wrapped with AES-256-GCM under a 256-bit key of the local stack. */
export const localDataKeyProvider = (keyEncryptionKey: Uint8Array): DataKeyProvider => {
  if (keyEncryptionKey.length !== 32) throw new Error('The local key-encryption key must be 256 bits');
  return {
    async generateDataKey(context) {
      const plaintext = randomBytes(32);
      return { plaintext, encrypted: gcmSeal(keyEncryptionKey, plaintext, canonical(context)) };
    },
    async decryptDataKey(encrypted, context) {
      return gcmOpen(keyEncryptionKey, encrypted, canonical(context));
    },
  };
};

/** Sorted, so that the same context always gives the same additional data. */
const canonical = (context: EncryptionContext): Buffer =>
  Buffer.from(JSON.stringify(Object.keys(context).sort().map((name) => [name, context[name]])));

const ivLength = 12;
const tagLength = 16;

/** iv || ciphertext || tag. */
const gcmSeal = (key: Uint8Array, plaintext: Uint8Array, additionalData: Buffer): Buffer => {
  const iv = randomBytes(ivLength);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagLength }).setAAD(additionalData);
  return Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
};

const gcmOpen = (key: Uint8Array, sealed: Uint8Array, additionalData: Buffer): Buffer => {
  const bytes = Buffer.from(sealed);
  if (bytes.length < ivLength + tagLength) throw new Error('Sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, ivLength), { authTagLength: tagLength }).setAAD(additionalData);
  decipher.setAuthTag(bytes.subarray(bytes.length - tagLength));
  return Buffer.concat([decipher.update(bytes.subarray(ivLength, bytes.length - tagLength)), decipher.final()]);
};

/** Prefix of a sealed value: `sealed:v1:<encrypted data key>:<iv ciphertext tag>`, both base64url. */
const sealedPrefix = 'sealed:v1:';

export const isSealed = (value: unknown): value is string => typeof value === 'string' && value.startsWith(sealedPrefix);

export interface Envelope {
  seal(plaintext: string, context: EncryptionContext): Promise<string>;
  open(sealed: string, context: EncryptionContext): Promise<string>;
}

export interface DataKeyCacheOptions {
  /** Unwrapped data keys kept at most (oldest dropped first). */
  maxEntries?: number;
  /** How long an unwrapped data key is kept. */
  maxAgeMs?: number;
  now?: () => number;
}

/**
 * Seals and opens values with the provider's data keys. Opening keeps the unwrapped data keys in a
 * bounded cache (by encrypted key and context), so a delivery worker signing many deliveries of one
 * subscription asks KMS once per subscription and cache lifetime. Every seal uses a new data key.
 */
export const envelope = (provider: DataKeyProvider, options: DataKeyCacheOptions = {}): Envelope => {
  const maxEntries = options.maxEntries ?? 500;
  const maxAgeMs = options.maxAgeMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { key: Uint8Array; at: number }>();

  const remember = (cacheKey: string, key: Uint8Array) => {
    cache.delete(cacheKey);
    cache.set(cacheKey, { key, at: now() });
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  };

  const dataKey = async (encrypted: Buffer, context: EncryptionContext): Promise<Uint8Array> => {
    const cacheKey = `${encrypted.toString('base64')}\u0000${canonical(context).toString()}`;
    const hit = cache.get(cacheKey);
    if (hit && now() - hit.at < maxAgeMs) return hit.key;
    const key = await provider.decryptDataKey(encrypted, context);
    remember(cacheKey, key);
    return key;
  };

  return {
    async seal(plaintext, context) {
      const { plaintext: key, encrypted } = await provider.generateDataKey(context);
      const sealed = gcmSeal(key, Buffer.from(plaintext, 'utf8'), canonical(context));
      remember(`${Buffer.from(encrypted).toString('base64')}\u0000${canonical(context).toString()}`, key);
      return `${sealedPrefix}${Buffer.from(encrypted).toString('base64url')}:${sealed.toString('base64url')}`;
    },
    async open(sealed, context) {
      if (!isSealed(sealed)) throw new Error('Not a sealed value');
      const [encryptedKey, data] = sealed.slice(sealedPrefix.length).split(':');
      if (!encryptedKey || !data) throw new Error('Malformed sealed value');
      const key = await dataKey(Buffer.from(encryptedKey, 'base64url'), context);
      return gcmOpen(key, Buffer.from(data, 'base64url'), canonical(context)).toString('utf8');
    },
  };
};

let secrets: { envelope: Envelope; builtFor: string } | undefined;

/**
 * The envelope of stored secrets: under the KMS key SECRETS_KEY_ID on AWS, else under the local
 * stack's key LOCAL_SECRETS_KEY (base64, 256 bits); neither set is an error at first use.
 */
export const secretsEnvelope = (): Envelope => {
  const { secretsKeyId, localSecretsKey, region } = config();
  const builtFor = `${secretsKeyId ?? ''} ${localSecretsKey ?? ''} ${region}`;
  if (secrets?.builtFor === builtFor) return secrets.envelope;
  let provider: DataKeyProvider;
  if (secretsKeyId) provider = kmsDataKeyProvider(secretsKeyId, new KMSClient({ region }));
  else if (localSecretsKey) provider = localDataKeyProvider(Buffer.from(localSecretsKey, 'base64'));
  else throw new Error('Missing environment variable SECRETS_KEY_ID (the KMS key of stored secrets)');
  secrets = { envelope: envelope(provider), builtFor };
  return secrets.envelope;
};
