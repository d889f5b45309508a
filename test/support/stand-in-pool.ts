import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { applyEnv } from './env';

/** A user pool and table as the authorizer sees them on AWS, in this process (unit tests of the authorizer). */
export interface StandInPool {
  issuer: string;
  /** Signs an access token (`token_use` access) with the pool's key, issued now unless `issuedAt` (seconds). */
  sign(claims: Record<string, unknown>, options?: { issuedAt?: number; subject?: string }): Promise<string>;
  /** Puts back the environment and stops the server. */
  close(): Promise<void>;
}

/** A DynamoDB string attribute. */
export const s = (value: string) => ({ S: value });

/**
 * Starts one loopback HTTP server that serves a fresh RS256 key as the pool's JWKS and answers every
 * other request as DynamoDB would, with `answer(target)` (the X-Amz-Target, e.g.
 * `DynamoDB_20120810.GetItem`), and points the authorizer's environment at it as on AWS (no
 * API_AUDIENCE), with `env` on top; close() puts the environment back.
 */
export const startStandInPool = async (answer: (target: string) => unknown, env: Record<string, string> = {}): Promise<StandInPool> => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'pool-key', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/jwks.json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(answer(String(request.headers['x-amz-target'] ?? ''))));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${base}/pool`;
  const settings: Record<string, string | undefined> = {
    JWT_ISSUER: issuer,
    JWKS_URI: `${base}/jwks.json`,
    TABLE_NAME: 'books',
    DYNAMODB_ENDPOINT: base,
    AWS_REGION: 'eu-north-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    SCOPE_PREFIX: 'ledger-api/',
    API_AUDIENCE: undefined, // as on AWS
    ...env,
  };
  const saved = applyEnv(settings);
  return {
    issuer,
    sign: (claims, options = {}) => {
      const issuedAt = options.issuedAt ?? Math.floor(Date.now() / 1000);
      const token = new SignJWT({ token_use: 'access', ...claims }).setProtectedHeader({ alg: 'RS256', kid: 'pool-key' }).setIssuer(issuer).setIssuedAt(issuedAt).setExpirationTime(issuedAt + 3600);
      return (options.subject ? token.setSubject(options.subject) : token).sign(privateKey);
    },
    close: async () => {
      applyEnv(saved);
      await new Promise((resolve) => server.close(resolve));
    },
  };
};
