/**
 * AWS list prices the cost model (infra/tools/cost-model.ts) uses: one region, one date, each with
 * its source page. Region eu-west-1 (Ireland), USD, list prices as of 2026-11-25 (unchanged since
 * DynamoDB's 1 November 2024 on-demand reduction; not fetched by a tool: check the pages before
 * quoting them); no free tier counted. Change them here only.
 */
export const awsPrices = {
  region: 'eu-west-1',
  listedOn: '2026-11-25',
  currency: 'USD',
  dynamodb: {
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    /** Per million write request units (on-demand, Standard table class): half the 1.4135 before the reduction. */
    perMillionWriteUnits: 0.70675,
    /** Per million read request units: half the 0.283 before the reduction. */
    perMillionReadUnits: 0.1415,
    /** Per GB-month of table storage (Standard), beyond the first 25 GB. */
    perGbMonth: 0.283,
  },
  lambda: {
    source: 'https://aws.amazon.com/lambda/pricing/',
    /** Per GB-second, Arm (the functions are ARM_64, infra/stacks/api-stack.ts), first 7.5 billion GB-s a month. */
    perGbSecondArm: 0.0000133334,
    perMillionRequests: 0.2,
  },
  apiGateway: {
    source: 'https://aws.amazon.com/api-gateway/pricing/',
    /** HTTP API, per million requests (first 300 million a month). */
    perMillionHttpRequests: 1.11,
  },
  sqs: {
    source: 'https://aws.amazon.com/sqs/pricing/',
    /** Standard queue, per million requests (64 KB chunks) beyond the first million. */
    perMillionRequests: 0.4,
  },
  s3: {
    source: 'https://aws.amazon.com/s3/pricing/',
    /** S3 Standard: PUT, COPY, POST, LIST per thousand; GET per thousand. */
    perThousandPuts: 0.005,
    perThousandGets: 0.0004,
  },
} as const;

export type AwsPrices = typeof awsPrices;

/**
 * The quotas the growth section names (AWS defaults, same sources' service-quota pages):
 * per partition key, per region and per account.
 */
export const awsLimits = {
  partitionWriteUnitsPerSecond: 1000,
  partitionReadUnitsPerSecond: 3000,
  /** A new on-demand table serves up to this at once before it adapts (or warm throughput is set). */
  newOnDemandTableWriteUnitsPerSecond: 4000,
  tableWriteUnitsPerSecondQuota: 40_000,
  lambdaConcurrentExecutions: 1000,
  httpApiRequestsPerSecond: 10_000,
  sqsInFlightMessages: 120_000,
} as const;
