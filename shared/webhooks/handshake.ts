import { randomBytes, randomUUID } from 'node:crypto';
import { clipReason, postJson, type AttemptContext, type AttemptOutcome } from './outbound';
import { newSigningSecret, signedHeaders } from './signing';

const answered = (outcome: AttemptOutcome) => (outcome.statusCode === null ? `failed (${outcome.error})` : `was answered ${outcome.statusCode}`);

const verificationRequest = (organizationId: string, secrets: readonly string[]) => {
  const challenge = randomBytes(24).toString('base64url');
  const id = randomUUID();
  const body = JSON.stringify({ id, type: 'webhook.verification', occurredAt: new Date().toISOString(), organizationId, companyId: null, data: { challenge } });
  return { challenge, body, headers: signedHeaders(secrets, id, body) };
};

/**
 * The handshake: a `webhook.verification` event carrying a challenge, correctly signed, must be
 * answered 2xx with `{"challenge": "<the same value>"}`; another one signed with a wrong secret
 * must be refused with a 4xx (a receiver that accepts anything is not verifying). Both are sent
 * at once. Answers why it failed (at most maxReasonLength characters), or undefined when the
 * receiver passed. `context` names the subscription in the log of a failed connection.
 */
export const handshake = async (url: string, organizationId: string, secrets: readonly string[], context: AttemptContext = {}): Promise<string | undefined> => {
  const failure = await handshakeFailure(url, organizationId, secrets, context);
  return failure === undefined ? undefined : clipReason(failure);
};

const handshakeFailure = async (url: string, organizationId: string, secrets: readonly string[], context: AttemptContext): Promise<string | undefined> => {
  const genuine = verificationRequest(organizationId, secrets);
  const forged = verificationRequest(organizationId, [newSigningSecret()]);
  const [signedOutcome, forgedOutcome] = await Promise.all([
    postJson(url, genuine.body, genuine.headers, { ...context, purpose: 'handshake' }),
    postJson(url, forged.body, forged.headers, { ...context, purpose: 'handshake (wrongly signed)' }),
  ]);
  const ok = signedOutcome.statusCode !== null && signedOutcome.statusCode >= 200 && signedOutcome.statusCode < 300;
  if (!ok) return `The signed verification request ${answered(signedOutcome)}; it must be answered 2xx with {"challenge": "<the challenge>"}.`;
  let echoed: unknown;
  try {
    echoed = (JSON.parse(signedOutcome.responseBody ?? '') as { challenge?: unknown }).challenge;
  } catch {
    echoed = undefined;
  }
  if (echoed !== genuine.challenge) return 'The answer to the signed verification request did not echo the challenge as {"challenge": "<the challenge>"}.';
  const refused = forgedOutcome.statusCode !== null && forgedOutcome.statusCode >= 400 && forgedOutcome.statusCode < 500;
  if (!refused) return `A verification request with a wrong signature ${answered(forgedOutcome)}; a receiver must refuse it with a 4xx.`;
  return undefined;
};
