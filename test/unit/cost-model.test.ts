import { describe, expect, it } from 'vitest';
import type { AwsPrices } from '../../infra/tools/aws-prices';
import { costModel, costOfWork, lambdaCost, type CostInputs } from '../../infra/tools/cost-model';

/** Round prices, so every figure below can be worked out by hand. */
const prices = {
  region: 'test',
  listedOn: 'test',
  currency: 'USD',
  dynamodb: { source: '-', perMillionWriteUnits: 1, perMillionReadUnits: 0.25, perGbMonth: 0.25 },
  lambda: { source: '-', perGbSecondArm: 0.00001, perMillionRequests: 0.2 },
  apiGateway: { source: '-', perMillionHttpRequests: 1 },
  sqs: { source: '-', perMillionRequests: 0.4 },
  s3: { source: '-', perThousandPuts: 0.005, perThousandGets: 0.0004 },
} as unknown as AwsPrices;

const none = { apiRequests: 0, sqsRequests: 0, s3Puts: 0, s3Gets: 0 };
const read = {
  operation: 'GET company',
  rcu: 0.5,
  wcu: 1,
  lambda: [
    { function: 'authorizer', ms: 0.2, memoryMb: 512 },
    { function: 'companies', ms: 3.4, memoryMb: 1024 },
  ],
  ...none,
  apiRequests: 1,
};
const inputs: CostInputs = {
  reads: [read],
  import: { lines: 10_000, lineItemBytes: 400, rcu: 100, wcu: 30_000, lambda: [{ function: 'imports-worker', ms: 5000, memoryMb: 1024 }], apiRequests: 2, sqsRequests: 6, s3Puts: 1, s3Gets: 1 },
  webhookEvent: { rcu: 2, wcu: 10, lambda: [{ function: 'webhook-relay', ms: 10, memoryMb: 512 }], ...none, sqsRequests: 3 },
  webhookDelivery: { rcu: 2, wcu: 6, lambda: [{ function: 'webhooks-worker', ms: 20, memoryMb: 1024 }], ...none, sqsRequests: 3 },
};

describe('cost model arithmetic', () => {
  it('bills Lambda per started millisecond of configured memory, plus the request', () => {
    // 1 ms x 0.5 GB x 1e-5 + 0.2e-6 ; 4 ms x 1 GB x 1e-5 + 0.2e-6
    expect(lambdaCost(read.lambda, prices)).toBeCloseTo(0.205e-6 + 0.24e-6, 12);
  });

  it('prices one read: units, Lambda, the API request', () => {
    const cost = costOfWork(read, prices);
    expect(cost.dynamodb).toBeCloseTo((0.5 * 0.25 + 1) / 1e6, 12);
    expect(cost.apiGateway).toBeCloseTo(1e-6, 12);
    expect(cost.total).toBeCloseTo(2.57e-6, 12);
  });

  it('prices a million reads, an import, a delivery and the month of a profile', () => {
    const model = costModel(inputs, { companies: 2, linesPerCompanyMonth: 10_000, apiReadsPerCompanyMonth: 1000, webhookDeliveriesPerCompanyMonth: 100, yearsKept: 1 }, prices);
    expect(model.perMillionReads.total).toBeCloseTo(2.57, 9);
    expect(model.perMillionReadsByOperation['GET company']).toBeCloseTo(2.57, 9);
    // 0.030025 DynamoDB + 0.0000502 Lambda + 0.000002 API + 0.0000024 SQS + 0.0000054 S3
    expect(model.perImport.dynamodb).toBeCloseTo(0.030025, 9);
    expect(model.perImport.s3).toBeCloseTo(5.4e-6, 12);
    expect(model.perImport.total).toBeCloseTo(0.030085, 9);
    // event 1.195e-5 + delivery 8.1e-6
    expect(model.perDelivery.total).toBeCloseTo(2.005e-5, 12);
    // 2 x 10,000 x 12 x 1 year x 3 copies x 500 bytes = 0.36 GB
    expect(model.monthly.storedGb).toBeCloseTo(0.36, 9);
    expect(model.monthly.storage).toBeCloseTo(0.09, 9);
    expect(model.monthly.reads.total).toBeCloseTo(2000 * 2.57e-6, 12);
    expect(model.monthly.imports.total).toBeCloseTo(2 * 0.030085, 9);
    expect(model.monthly.webhooks.total).toBeCloseTo(200 * 2.005e-5, 12);
    expect(model.monthly.total).toBeCloseTo(0.00514 + 0.06017 + 0.00401 + 0.09, 9);
  });
});
