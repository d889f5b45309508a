import { isSealed, secretsEnvelope, type EncryptionContext } from '../platform/envelope-encryption';

/**
 * Signing secrets at rest: stored sealed (envelope encryption under the stack's KMS key), bound to
 * their subscription and organization, and opened only to sign (deliveries, the handshake).
 * Subscriptions written before encryption hold their secrets in plain text: read as they are,
 * and sealed when they are next written (a rotation).
 */
interface SecretOwner {
  id: string;
  organizationId: string;
}

const contextOf = (subscription: SecretOwner): EncryptionContext => ({
  purpose: 'webhook-signing-secret',
  organizationId: subscription.organizationId,
  subscriptionId: subscription.id,
});

export const sealSigningSecret = (secret: string, subscription: SecretOwner): Promise<string> =>
  isSealed(secret) ? Promise.resolve(secret) : secretsEnvelope().seal(secret, contextOf(subscription));

export const openSigningSecret = (stored: string, subscription: SecretOwner): Promise<string> =>
  isSealed(stored) ? secretsEnvelope().open(stored, contextOf(subscription)) : Promise.resolve(stored);
