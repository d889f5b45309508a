import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): a secret is `whsec_` + base64
 * of 32 random bytes; the signature of a message is `v1,` + base64(HMAC-SHA256(key, `id.timestamp.body`)).
 */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

export const signature = (secret: string, id: string, timestamp: number, body: string): string =>
  `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

/** The three headers of a delivery; with several secrets (during a rotation) their signatures are space-separated. */
export const signedHeaders = (secrets: readonly string[], id: string, body: string, now = Date.now()): Record<string, string> => {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestamp, body)).join(' '),
  };
};

