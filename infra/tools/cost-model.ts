import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
/**
 * `npm run cost`: what the service costs on AWS, from the capacity units and function durations
 * `npm run bench:capacity` measures (.local/bench/capacity.json; run first when missing or with
 * --fresh) and the list prices of infra/tools/aws-prices.ts. Prints the cost per million API
 * reads, per 10,000-line import, per webhook delivery, and per month for an accounting firm of
 * 200 companies with the usage profile below; `--json` prints the figures as JSON.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { awsPrices, type AwsPrices } from './aws-prices';
import type { CapacityResults, LambdaWork } from './bench-capacity';
import { readCli } from './cli-args';
import { typescriptNodeArgs } from './typescript-node';

/** One unit of work: DynamoDB units, the Lambda functions it runs, and its other requests. */
export interface Work {
  rcu: number;
  wcu: number;
  lambda: LambdaWork[];
  /** HTTP API requests. */
  apiRequests: number;
  sqsRequests: number;
  s3Puts: number;
  s3Gets: number;
}

export interface CostInputs {
  /** The API reads measured (GET company, a GL page, the trial balance, a person's list, an MCP call): the model takes their mean. */
  reads: (Work & { operation: string })[];
  /** One 10,000-line GL import: POST, worker, post-fetch engines, one status read. */
  import: Work & { lines: number; lineItemBytes: number };
  /** One event's relay and fan-out, and one delivery to one subscription. */
  webhookEvent: Work;
  webhookDelivery: Work;
}

/** The firm the monthly figure is for. */
export interface UsageProfile {
  companies: number;
  /** GL lines each company imports a month (in imports of about 2,500 lines, once a week). */
  linesPerCompanyMonth: number;
  apiReadsPerCompanyMonth: number;
  webhookDeliveriesPerCompanyMonth: number;
  /** Years of lines kept in the table. */
  yearsKept: number;
}

export const firmProfile: UsageProfile = { companies: 200, linesPerCompanyMonth: 10_000, apiReadsPerCompanyMonth: 3_000, webhookDeliveriesPerCompanyMonth: 100, yearsKept: 3 };

/** DynamoDB's per-item overhead counted in storage (and in each index entry), bytes. */
const itemOverheadBytes = 100;

export interface CostBreakdown {
  dynamodb: number;
  lambda: number;
  apiGateway: number;
  sqs: number;
  s3: number;
  total: number;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** Lambda bills each invocation per started millisecond (at least 1) of its configured memory. */
export const lambdaCost = (work: readonly LambdaWork[], prices: AwsPrices = awsPrices): number =>
  sum(work.map((fn) => (Math.max(1, Math.ceil(fn.ms)) / 1000) * (fn.memoryMb / 1024) * prices.lambda.perGbSecondArm + prices.lambda.perMillionRequests / 1e6));

/** USD of one unit of work. */
export const costOfWork = (work: Work, prices: AwsPrices = awsPrices): CostBreakdown => {
  const dynamodb = (work.rcu * prices.dynamodb.perMillionReadUnits + work.wcu * prices.dynamodb.perMillionWriteUnits) / 1e6;
  const lambda = lambdaCost(work.lambda, prices);
  const apiGateway = (work.apiRequests * prices.apiGateway.perMillionHttpRequests) / 1e6;
  const sqs = (work.sqsRequests * prices.sqs.perMillionRequests) / 1e6;
  const s3 = (work.s3Puts * prices.s3.perThousandPuts + work.s3Gets * prices.s3.perThousandGets) / 1000;
  return { dynamodb, lambda, apiGateway, sqs, s3, total: dynamodb + lambda + apiGateway + sqs + s3 };
};

const scale = (cost: CostBreakdown, factor: number): CostBreakdown =>
  Object.fromEntries(Object.entries(cost).map(([key, value]) => [key, value * factor])) as unknown as CostBreakdown;
const add = (...costs: CostBreakdown[]): CostBreakdown =>
  Object.fromEntries((['dynamodb', 'lambda', 'apiGateway', 'sqs', 's3', 'total'] as const).map((key) => [key, sum(costs.map((cost) => cost[key]))])) as unknown as CostBreakdown;

export interface CostModel {
  perMillionReads: CostBreakdown;
  perMillionReadsByOperation: Record<string, number>;
  perImport: CostBreakdown;
  perDelivery: CostBreakdown;
  monthly: { reads: CostBreakdown; imports: CostBreakdown; webhooks: CostBreakdown; storage: number; storedGb: number; total: number };
}

/** The model: per unit of work from the inputs, and the firm's month from the profile. */
export const costModel = (inputs: CostInputs, profile: UsageProfile = firmProfile, prices: AwsPrices = awsPrices): CostModel => {
  const readCosts = inputs.reads.map((read) => costOfWork(read, prices));
  const perRead = scale(add(...readCosts), 1 / readCosts.length);
  const perImport = costOfWork(inputs.import, prices);
  const perDelivery = add(costOfWork(inputs.webhookEvent, prices), costOfWork(inputs.webhookDelivery, prices));
  const monthlyReads = scale(perRead, profile.companies * profile.apiReadsPerCompanyMonth);
  const monthlyImports = scale(perImport, (profile.companies * profile.linesPerCompanyMonth) / inputs.import.lines);
  const monthlyWebhooks = scale(perDelivery, profile.companies * profile.webhookDeliveriesPerCompanyMonth);
  // Each line is stored three times: the item and its two index entries (projection ALL).
  const storedGb = (profile.companies * profile.linesPerCompanyMonth * 12 * profile.yearsKept * 3 * (inputs.import.lineItemBytes + itemOverheadBytes)) / 1e9;
  const storage = storedGb * prices.dynamodb.perGbMonth;
  return {
    perMillionReads: scale(perRead, 1e6),
    perMillionReadsByOperation: Object.fromEntries(inputs.reads.map((read, i) => [read.operation, readCosts[i]!.total * 1e6])),
    perImport,
    perDelivery,
    monthly: { reads: monthlyReads, imports: monthlyImports, webhooks: monthlyWebhooks, storage, storedGb, total: monthlyReads.total + monthlyImports.total + monthlyWebhooks.total + storage },
  };
};

/** The model's inputs from a capacity run (`npm run bench:capacity`). */
export const inputsFromCapacity = (results: CapacityResults): CostInputs => {
  const operation = (name: string) => results.operations.find((op) => op.operation.startsWith(name)) ?? fail(`capacity results lack "${name}"`);
  const readNames = ['GET company', 'GL page of 200', 'trial balance', "a person's company list", 'MCP tool call'];
  const imported = results.imports.find((run) => run.layout.includes('12 periods')) ?? results.imports[0] ?? fail('capacity results lack an import');
  const event = operation('webhook event');
  const delivery = operation('webhook delivery');
  return {
    reads: readNames.map((name) => {
      const op = operation(name);
      return { operation: op.operation, rcu: op.summary.rcu, wcu: op.summary.wcu, lambda: op.lambda, apiRequests: 1, sqsRequests: 0, s3Puts: 0, s3Gets: 0 };
    }),
    import: {
      lines: imported.lines,
      lineItemBytes: imported.lineItemBytes,
      rcu: imported.worker.rcu + imported.api.rcu + imported.postFetch.rcu,
      wcu: imported.worker.wcu + imported.api.wcu + imported.postFetch.wcu,
      // The POST and one status read (each with the authorizer); the worker and the post-fetch engines.
      lambda: [...imported.lambda, ...operation('GET company').lambda.map((fn) => ({ ...fn, function: `${fn.function} (as the status read)` })), { function: 'authorizer (the POST)', ms: 1, memoryMb: 512 }],
      apiRequests: 2,
      // Send, receive, delete on the imports queue and on the post-fetch queue.
      sqsRequests: 6,
      // The payload to S3 (claim check) and the worker's read of it.
      s3Puts: 1,
      s3Gets: 1,
    },
    webhookEvent: { rcu: event.summary.rcu, wcu: event.summary.wcu, lambda: event.lambda, apiRequests: 0, sqsRequests: 3, s3Puts: 0, s3Gets: 0 },
    webhookDelivery: { rcu: delivery.summary.rcu, wcu: delivery.summary.wcu, lambda: delivery.lambda, apiRequests: 0, sqsRequests: 3, s3Puts: 0, s3Gets: 0 },
  };
};

function fail(message: string): never {
  throw new Error(message);
}

const usd = (value: number) => (value === 0 ? '-' : value >= 1 ? `$${value.toFixed(2)}` : value >= 0.01 ? `$${value.toFixed(3)}` : `$${value.toPrecision(2)}`);

/** The model as Markdown tables (docs/cost-model.md shows this output). */
export const costTables = (model: CostModel, profile: UsageProfile = firmProfile): string => {
  const row = (name: string, cost: CostBreakdown) => `| ${name} | ${usd(cost.dynamodb)} | ${usd(cost.lambda)} | ${usd(cost.apiGateway)} | ${usd(cost.sqs)} | ${usd(cost.s3)} | **${usd(cost.total)}** |`;
  return [
    `| unit | DynamoDB | Lambda | API Gateway | SQS | S3 | total |`,
    `|---|---|---|---|---|---|---|`,
    row('a million API reads (mean of the five reads)', model.perMillionReads),
    row('one 10,000-line GL import', model.perImport),
    row('a million webhook deliveries (each event relayed and fanned out to one subscription)', scale(model.perDelivery, 1e6)),
    '',
    `| a million of each read | total |`,
    `|---|---|`,
    ...Object.entries(model.perMillionReadsByOperation).map(([name, total]) => `| ${name} | ${usd(total)} |`),
    '',
    `| a month of the firm (${profile.companies} companies) | DynamoDB | Lambda | API Gateway | SQS | S3 | total |`,
    `|---|---|---|---|---|---|---|`,
    row(`API reads: ${(profile.companies * profile.apiReadsPerCompanyMonth).toLocaleString('en')}`, model.monthly.reads),
    row(`imports: ${(profile.companies * profile.linesPerCompanyMonth).toLocaleString('en')} GL lines`, model.monthly.imports),
    row(`webhook deliveries: ${(profile.companies * profile.webhookDeliveriesPerCompanyMonth).toLocaleString('en')}`, model.monthly.webhooks),
    `| storage: ${model.monthly.storedGb.toFixed(1)} GB (${profile.yearsKept} years of lines, each with its two index entries) | ${usd(model.monthly.storage)} | - | - | - | - | **${usd(model.monthly.storage)}** |`,
    `| **the month** | | | | | | **${usd(model.monthly.total)}** |`,
  ].join('\n');
};

const isMain = process.argv[1]?.endsWith('cost-model.ts');
if (isMain) {
  const values = readCli({
    command: 'cost',
    summary: 'What the service costs on AWS, from the capacity units and durations npm run bench:capacity measures (.local/bench/capacity.json) and the list prices of infra/tools/aws-prices.ts.',
    options: {
      fresh: { type: 'boolean', description: 'run npm run bench:capacity first, even when its results exist' },
      json: { type: 'boolean', description: 'print the model as JSON' },
    },
  });
  const file = resolve('.local/bench/capacity.json');
  if (values.fresh || !existsSync(file)) {
    console.error('running npm run bench:capacity first (a few minutes)');
    execFileSync(process.execPath, [...typescriptNodeArgs, 'infra/tools/bench-capacity.ts'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const results = JSON.parse(readFileSync(file, 'utf8')) as CapacityResults;
  const model = costModel(inputsFromCapacity(results));
  if (values.json) console.log(JSON.stringify({ measuredAt: results.at, prices: awsPrices, profile: firmProfile, model }, null, 2));
  else {
    console.log(`Cost model: capacity measured ${results.at}; prices ${awsPrices.region}, ${awsPrices.currency}, listed ${awsPrices.listedOn} (infra/tools/aws-prices.ts)\n`);
    console.log(costTables(model));
  }
}
