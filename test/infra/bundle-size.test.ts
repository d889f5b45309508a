import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { tracingModuleFile } from '../../shared/platform/tracer';
import { withRequestBaseUrl } from '../../shared/platform/config';
import { bundleBudgetBytes, bundleBudgetExceptions, bundledAssetHooks, bundleLambda, bundleLambdas, initGoalExceptions, lambdaEntries, prebuiltDocumentEntries, prebuiltDocumentFiles, type LambdaBundle } from '../../infra/stacks/bundled-assets';

/**
 * Every Lambda bundled as the stack bundles it (esbuild, the same options): its bytes and what is in
 * it are deterministic, so they are asserted here; its init time is measured by npm run bench:cold-start.
 */
const repoRoot = resolve('.');
const outDir = mkdtempSync(join(os.tmpdir(), 'ledger-bundle-size-'));
const bundles = new Map<string, LambdaBundle>();

beforeAll(async () => {
  for (const bundle of await bundleLambdas(lambdaEntries, outDir, repoRoot)) bundles.set(bundle.name, bundle);
}, 900_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

describe('Lambda bundles', () => {
  it('lists every function of functions/ (each folder with a handler is a Lambda)', () => {
    const folders = readdirSync(join(repoRoot, 'functions'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && readdirSync(join(repoRoot, 'functions', entry.name)).includes('handler.ts'))
      .map((entry) => entry.name)
      .sort();
    expect(lambdaEntries.map((lambda) => lambda.name).sort()).toEqual(folders);
  });

  it('bundles each function in the shared esbuild run exactly as bundling it alone does', async () => {
    const aloneDir = mkdtempSync(join(os.tmpdir(), 'ledger-bundle-alone-'));
    try {
      const alone = await bundleLambda('webhook-relay', bundles.get('webhook-relay')!.entry, aloneDir, repoRoot);
      expect(readFileSync(alone.file)).toEqual(readFileSync(bundles.get('webhook-relay')!.file));
    } finally {
      rmSync(aloneDir, { recursive: true, force: true });
    }
  });

  it('every bundle is at most 1 MiB, unless it is listed with its reason', () => {
    const over = [...bundles.values()].filter((bundle) => bundle.bytes > bundleBudgetBytes && !bundleBudgetExceptions[bundle.name]);
    expect(over.map((bundle) => `${bundle.name}: ${kib(bundle.bytes)}`)).toEqual([]);
    expect(bundles.size).toBe(lambdaEntries.length);
  });

  it('lists no bundle that is within the budget (a reason that no longer holds goes)', () => {
    const stale = Object.keys(bundleBudgetExceptions).filter((name) => (bundles.get(name)?.bytes ?? 0) <= bundleBudgetBytes);
    expect(stale).toEqual([]);
    for (const reason of Object.values(bundleBudgetExceptions)) expect(reason.length).toBeGreaterThan(20);
  });

  it('names only Lambdas, each with its reason, where the cold-start goal has an exception', () => {
    expect(Object.keys(initGoalExceptions).filter((name) => !bundles.has(name))).toEqual([]);
    for (const reason of Object.values(initGoalExceptions)) expect(reason.length).toBeGreaterThan(20);
  });

  it('bundles only the parts of zod the schemas use (z imported as a namespace: none of its other locales)', () => {
    for (const bundle of bundles.values()) {
      const locales = bundle.inputs.filter((input) => /node_modules\/zod\/v4\/locales\/(?!en\.js|index\.js)/.test(input));
      expect(locales, bundle.name).toEqual([]);
    }
  });

  it('bundles the OpenAPI generator and the YAML writer nowhere (openapi and mcp read the document generated at build time), the MCP SDK only where it is used', () => {
    const holders = (input: RegExp) => [...bundles.values()].filter((bundle) => bundle.inputs.some((file) => input.test(file))).map((bundle) => bundle.name).sort();
    expect(holders(/^shared\/openapi\/document\.ts$/)).toEqual([]);
    expect(holders(/^shared\/openapi\/prebuilt\.ts$/)).toEqual(['mcp', 'openapi']);
    expect(lambdaEntries.filter((lambda) => prebuiltDocumentEntries.includes(lambda.entry)).map((lambda) => lambda.name).sort()).toEqual(['mcp', 'openapi']);
    expect(holders(/node_modules\/yaml\//)).toEqual([]);
    expect(holders(/^shared\/openapi\/yaml\.ts$/)).toEqual([]);
    expect(holders(/node_modules\/@modelcontextprotocol\/sdk\//)).toEqual(['mcp']);
  });

  /** The openapi bundle, started afresh in its own process, answers one sample event of events/openapi/. */
  const serveFresh = async (sampleEvent: string, tokenUrl: string) => {
    const bundle = bundles.get('openapi')!;
    const event = readFileSync(join(repoRoot, 'events/openapi', sampleEvent), 'utf8').replace('{{uuid}}', 'bundle-size');
    const script = `const { handler } = await import(process.argv[1]); const r = await handler(JSON.parse(process.argv[2]), { functionName: 'openapi', awsRequestId: 'bundle-size', getRemainingTimeInMillis: () => 10000 }); process.stdout.write('\\n' + JSON.stringify(r));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, pathToFileURL(bundle.file).href, event], {
      env: { PATH: process.env.PATH, AWS_REGION: 'eu-north-1', POWERTOOLS_LOG_LEVEL: 'ERROR', TOKEN_URL: tokenUrl },
      maxBuffer: 64 << 20,
    });
    const answer = JSON.parse(stdout.trim().split('\n').at(-1)!) as { statusCode: number; body: string; headers: Record<string, string> };
    const domainName = (JSON.parse(event) as { requestContext: { domainName: string } }).requestContext.domainName;
    return { answer, baseUrl: `https://${domainName}` };
  };

  /** The document the zod schemas generate with these settings. */
  const generatedDocument = (baseUrl: string, tokenUrl: string) => {
    const saved = { TOKEN_URL: process.env.TOKEN_URL, PROBLEM_TYPE_BASE: process.env.PROBLEM_TYPE_BASE };
    Object.assign(process.env, { TOKEN_URL: tokenUrl });
    delete process.env.PROBLEM_TYPE_BASE;
    try {
      return withRequestBaseUrl(baseUrl, () => buildOpenApiDocument());
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  };

  const tokenUrl = 'https://ledger.auth.eu-north-1.amazoncognito.com/oauth2/token';

  it('the openapi bundle, started afresh, serves the document generated at build time: the one the zod schemas generate', async () => {
    const { answer, baseUrl } = await serveFresh('getOpenApiDocument.json', tokenUrl);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(generatedDocument(baseUrl, tokenUrl));
  });

  it('the openapi bundle, started afresh, serves the YAML written at build time: the same document', async () => {
    const { answer, baseUrl } = await serveFresh('getOpenApiYaml.json', tokenUrl);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/yaml; charset=utf-8');
    expect(answer.body).not.toContain('.invalid');
    expect(parseYaml(answer.body)).toEqual(generatedDocument(baseUrl, tokenUrl));
  });

  it('writes at synth, beside the openapi bundle, the document files this run wrote beside its bundles (the mcp bundle gets the JSON only)', async () => {
    expect(prebuiltDocumentFiles[bundles.get('mcp')!.entry]).toEqual(['openapi.json']);
    const entry = bundles.get('openapi')!.entry;
    const synthDir = mkdtempSync(join(os.tmpdir(), 'ledger-synth-openapi-'));
    try {
      const commands = bundledAssetHooks(entry, repoRoot).commandHooks.afterBundling(repoRoot, synthDir);
      for (const command of commands) await promisify(execFile)('sh', ['-c', command], { maxBuffer: 16 << 20 });
      const written = readdirSync(synthDir).filter((file) => file.startsWith('openapi.')).sort();
      expect(written).toEqual([...prebuiltDocumentFiles[entry]!].sort());
      for (const file of written) expect(readFileSync(join(synthDir, file), 'utf8'), file).toBe(readFileSync(join(outDir, file), 'utf8'));
    } finally {
      rmSync(synthDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('bundles the Tracer and the X-Ray SDK in no function: tracing.mjs beside the bundles holds them', () => {
    const holders = [...bundles.values()].filter((bundle) => bundle.inputs.some((file) => /node_modules\/(aws-xray-sdk-core|@aws-lambda-powertools\/tracer|cls-hooked)\//.test(file))).map((bundle) => bundle.name);
    expect(holders).toEqual([]);
    const tracing = readFileSync(join(outDir, tracingModuleFile), 'utf8');
    expect(tracing).toContain('AWS_XRAY_DAEMON_ADDRESS');
  });

  /** Runs the webhook-relay bundle of `dir` afresh with `env` and serves an empty stream batch; answers its output. */
  const relayFresh = async (dir: string, env: Record<string, string>) => {
    const script = `const { handler } = await import(process.argv[1]); const r = await handler({ Records: [] }, { functionName: 'webhook-relay', awsRequestId: 'bundle-size', getRemainingTimeInMillis: () => 10000 }); process.stdout.write('\\n' + JSON.stringify(r));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, pathToFileURL(join(dir, 'webhook-relay.mjs')).href], {
      env: { PATH: process.env.PATH, AWS_REGION: 'eu-north-1', POWERTOOLS_LOG_LEVEL: 'ERROR', ...env },
    });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as unknown;
  };

  it('a bundle started afresh with tracing on (as in Lambda) loads tracing.mjs beside it and sends its handler subsegment to the X-Ray daemon', async () => {
    const daemon = createSocket('udp4');
    const names: string[] = [];
    daemon.on('message', (message) => names.push((JSON.parse(message.toString('utf8').split('\n').slice(1).join('\n')) as { name: string }).name));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    try {
      const traced = {
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
        LAMBDA_TASK_ROOT: outDir,
        _HANDLER: 'index.handler',
        _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
      };
      expect(await relayFresh(outDir, traced)).toEqual({ batchItemFailures: [] });
      const deadline = Date.now() + 10_000;
      while (!names.includes('## index.handler') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(names).toContain('## index.handler');
    } finally {
      daemon.close();
    }
  });

  it('a bundle started afresh with tracing off does not read tracing.mjs (it serves without it)', async () => {
    const alone = mkdtempSync(join(os.tmpdir(), 'ledger-bundle-untraced-'));
    try {
      copyFileSync(bundles.get('webhook-relay')!.file, join(alone, 'webhook-relay.mjs'));
      expect(await relayFresh(alone, {})).toEqual({ batchItemFailures: [] });
      await expect(relayFresh(alone, { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' })).rejects.toThrow(/tracing\.mjs/);
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });

  it('writes at synth, beside every bundle, the tracing module this run wrote beside its bundles', async () => {
    const synthDir = mkdtempSync(join(os.tmpdir(), 'ledger-synth-tracing-'));
    try {
      for (const command of bundledAssetHooks(bundles.get('webhook-relay')!.entry, repoRoot).commandHooks.afterBundling(repoRoot, synthDir)) await promisify(execFile)('sh', ['-c', command]);
      expect(readdirSync(synthDir)).toEqual([tracingModuleFile]);
      expect(readFileSync(join(synthDir, tracingModuleFile))).toEqual(readFileSync(join(outDir, tracingModuleFile)));
    } finally {
      rmSync(synthDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('builds no zod schema where no operation needs it: the company schemas only where company shapes are served, no shared schema in the outbox workers', () => {
    const holders = (input: RegExp) => [...bundles.values()].filter((bundle) => bundle.inputs.some((file) => input.test(file))).map((bundle) => bundle.name).sort();
    expect(holders(/^shared\/companies\/schemas\.ts$/)).toEqual(['bank', 'companies', 'documents', 'ledger', 'mcp', 'vat']);
    const schemaFree = ['authorizer', 'fallback', 'outbox-sweeper', 'upload-worker', 'webhook-delivery-worker', 'webhook-fanout-worker', 'webhook-relay'];
    for (const name of schemaFree) expect(bundles.get(name)!.inputs.filter((file) => /^shared\/.*schemas\.ts$/.test(file)), name).toEqual([]);
  });

  it('bundles zod only where a request, an answer or a file is validated: not where events are only emitted, relayed, fanned out or delivered', () => {
    const withZod = [...bundles.values()].filter((bundle) => bundle.inputs.some((file) => /node_modules\/zod\//.test(file))).map((bundle) => bundle.name);
    const zodFree = lambdaEntries.map((lambda) => lambda.name).filter((name) => !withZod.includes(name)).sort();
    expect(zodFree).toEqual(['authorizer', 'outbox-sweeper', 'upload-worker', 'webhook-delivery-worker', 'webhook-fanout-worker', 'webhook-relay']);
  });

  it('bundles decimal.js only where amounts are read or written (writing a response does not load it)', () => {
    const holders = [...bundles.values()].filter((bundle) => bundle.inputs.some((file) => /node_modules\/decimal\.js\//.test(file))).map((bundle) => bundle.name).sort();
    expect(holders).toEqual(['bank', 'import-worker', 'imports', 'ledger', 'mcp', 'post-fetch-worker', 'vat']);
  });

  it('keeps the functions that answer from DynamoDB alone free of the S3 client', () => {
    const withS3 = [...bundles.values()].filter((bundle) => bundle.sdkPackages.includes('@aws-sdk/client-s3')).map((bundle) => bundle.name).sort();
    expect(withS3).toEqual(['documents', 'import-worker', 'imports', 'mcp', 'upload-worker']);
  });
});
