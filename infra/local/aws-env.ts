/**
 * AWS SDK settings for the local stack (DynamoDB Local, fauxqs, s3rver on 127.0.0.1).
 * s3rver verifies signatures and only accepts the access key / secret `S3RVER`; DynamoDB Local
 * (run with -sharedDb) and fauxqs accept any credentials, so one pair serves all three.
 */
export const localAwsEnv = {
  region: 'eu-north-1',
  accessKeyId: 'S3RVER',
  secretAccessKey: 'S3RVER',
} as const;

/** Credentials object for SDK clients that talk to the local emulators. */
export const localAwsCredentials: { accessKeyId: string; secretAccessKey: string } = {
  accessKeyId: localAwsEnv.accessKeyId,
  secretAccessKey: localAwsEnv.secretAccessKey,
};

/** Region the local stack uses: AWS_REGION if set, else `localAwsEnv.region`. */
export function localAwsRegion(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWS_REGION || localAwsEnv.region;
}

/**
 * Points the default AWS SDK chain of every client created afterwards at the local emulators:
 * - AWS_REGION (kept if already set);
 * - AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY = S3RVER (always); AWS_SESSION_TOKEN removed, so a
 *   real token never travels with the fake keys;
 * - AWS_EC2_METADATA_DISABLED=true, so the SDK never probes instance metadata off loopback;
 * - AWS_REQUEST_CHECKSUM_CALCULATION / AWS_RESPONSE_CHECKSUM_VALIDATION = WHEN_REQUIRED: with the
 *   SDK default (WHEN_SUPPORTED), a streamed PutObject is sent aws-chunked with a CRC32 trailer and
 *   s3rver stores the chunk framing as the object's content.
 */
export function applyLocalAwsEnv(env: NodeJS.ProcessEnv = process.env): void {
  if (!env.AWS_REGION) env.AWS_REGION = localAwsEnv.region;
  env.AWS_ACCESS_KEY_ID = localAwsEnv.accessKeyId;
  env.AWS_SECRET_ACCESS_KEY = localAwsEnv.secretAccessKey;
  delete env.AWS_SESSION_TOKEN;
  env.AWS_EC2_METADATA_DISABLED = 'true';
  env.AWS_REQUEST_CHECKSUM_CALCULATION = 'WHEN_REQUIRED';
  env.AWS_RESPONSE_CHECKSUM_VALIDATION = 'WHEN_REQUIRED';
}
