import './node-version'; // first: quiets the AWS SDK's per-process Node.js warning (once, see the module)
/**
 * `npm run bench:saft` (tsx infra/tools/bench-saft.ts): a generated SAF-T Financial file of N GL
 * lines (default 100,000; --lines N) imported two ways on a local stack of its own (in memory,
 * free ports): through the SAF-T flow (declare, PUT, start, the worker) and through the six-kind
 * imports of the same lines (chart, then GL-line imports of 10,000 over HTTP). The SAF-T job runs
 * in the import worker alone in its own process, bundled as its Lambda is
 * (infra/tools/bench-worker.ts), which reports its peak RSS (goal: at most 512 MB).
 * Prints lines/s of both and the RSS; writes the figures to .local/bench/saft.json (gitignored).
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { copyFileSync, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { once } from 'node:events';
import { promisify } from 'node:util';
import type { StackInfo } from '../local/stack';
import { bundledAssets } from '../stacks/bundled-assets';
import { bundleAsLambda, runBench, writeBenchResults } from './bench-support';
import { readCli } from './cli-args';

process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

/** GL lines of the generated file (--lines N, even). */
let lineCount = 100_000;
const setLines = (lines: number) => {
  if (!Number.isInteger(lines) || lines < 2 || lines > 1_000_000 || lines % 2) throw new Error('--lines must be an even number from 2 to 1,000,000');
  lineCount = lines;
};

const year = 2025;
const accountCodes = Array.from({ length: 50 }, (_, i) => String(1000 + i * 100));
const organizationNumber = '999999999';
const deadlineMs = 30 * 60_000;
const log = (message: string) => console.error(`[bench:saft] ${message}`);
const round = (value: number, digits = 0) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The n-th voucher: two lines (debit one account, credit another), a period from 1 to 12. */
const voucher = (n: number) => {
  const amount = `${(n % 9000) + 100}.${String(n % 100).padStart(2, '0')}`;
  return { id: `V${n}`, period: (n % 12) + 1, debit: accountCodes[n % accountCodes.length]!, credit: accountCodes[(n * 7 + 1) % accountCodes.length]!, amount };
};

/** Writes the SAF-T file (1.10) of lineCount lines, streamed; answers its path. */
const generateFile = async (dir: string): Promise<string> => {
  const file = join(dir, 'bench-saft.xml');
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const transactions = lineCount / 2;
  const total = Array.from({ length: transactions }, (_, n) => Number(voucher(n).amount)).reduce((a, b) => a + b, 0).toFixed(2);
  await write(`<?xml version="1.0" encoding="UTF-8"?>
<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:NO">
<Header><AuditFileVersion>1.10</AuditFileVersion><AuditFileCountry>NO</AuditFileCountry><AuditFileDateCreated>2026-01-15</AuditFileDateCreated>
<SoftwareCompanyName>Bench</SoftwareCompanyName><SoftwareID>bench-saft</SoftwareID><SoftwareVersion>1</SoftwareVersion>
<Company><RegistrationNumber>${organizationNumber}</RegistrationNumber><Name>Bench AS</Name><Address><City>Oslo</City><PostalCode>0150</PostalCode></Address><Contact><ContactPerson><FirstName>Bench</FirstName><LastName>Bench</LastName></ContactPerson></Contact></Company><DefaultCurrencyCode>NOK</DefaultCurrencyCode>
<SelectionCriteria><PeriodStart>1</PeriodStart><PeriodStartYear>${year}</PeriodStartYear><PeriodEnd>12</PeriodEnd><PeriodEndYear>${year}</PeriodEndYear></SelectionCriteria>
<TaxAccountingBasis>A</TaxAccountingBasis></Header>
<MasterFiles><GeneralLedgerAccounts>
`);
  for (const code of accountCodes) {
    await write(`<Account><AccountID>${code}</AccountID><AccountDescription>Account ${code}</AccountDescription><StandardAccountID>${code.slice(0, 2)}</StandardAccountID><AccountType>GL</AccountType><OpeningDebitBalance>0</OpeningDebitBalance><ClosingDebitBalance>0</ClosingDebitBalance></Account>\n`);
  }
  await write(`</GeneralLedgerAccounts></MasterFiles>
<GeneralLedgerEntries><NumberOfEntries>${transactions}</NumberOfEntries><TotalDebit>${total}</TotalDebit><TotalCredit>${total}</TotalCredit>
<Journal><JournalID>GL</JournalID><Description>Bench</Description><Type>GL</Type>
`);
  for (let n = 0; n < transactions; n++) {
    const v = voucher(n);
    const date = `${year}-${String(v.period).padStart(2, '0')}-15`;
    await write(
      `<Transaction><TransactionID>${v.id}</TransactionID><Period>${v.period}</Period><PeriodYear>${year}</PeriodYear><TransactionDate>${date}</TransactionDate><Description>Bench ${n}</Description><SystemEntryDate>${date}</SystemEntryDate><GLPostingDate>${date}</GLPostingDate>` +
        `<Line><RecordID>1</RecordID><AccountID>${v.debit}</AccountID><Description>Bench ${n}</Description><DebitAmount><Amount>${v.amount}</Amount></DebitAmount></Line>` +
        `<Line><RecordID>2</RecordID><AccountID>${v.credit}</AccountID><Description>Bench ${n}</Description><CreditAmount><Amount>${v.amount}</Amount></CreditAmount></Line></Transaction>\n`,
    );
  }
  await write('</Journal></GeneralLedgerEntries></AuditFile>\n');
  out.end();
  await once(out, 'finish');
  return file;
};

/** The same lines as six-kind import bodies: the chart, then GL lines in imports of 10,000. */
const sixKindBodies = () => {
  const chart = { year, accounts: accountCodes.map((code) => ({ accountCode: code, accountDescription: `Account ${code}`, accountCategory: /^[12]/.test(code) ? 'Balance' : 'Result' })) };
  const lines: Record<string, unknown>[] = [];
  for (let n = 0; n < lineCount / 2; n++) {
    const v = voucher(n);
    const common = { period: v.period, transactionId: v.id, transactionDate: `${year}-${String(v.period).padStart(2, '0')}-15`, description: `Bench ${n}` };
    lines.push({ id: `${v.id}-1`, accountCode: v.debit, amount: v.amount, ...common }, { id: `${v.id}-2`, accountCode: v.credit, amount: `-${v.amount}`, ...common });
  }
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < lines.length; i += 10_000) batches.push(lines.slice(i, i + 10_000));
  return { chart, batches };
};

const main = async (): Promise<number> => {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'ledger-bench-saft-'));
  const { startLocalStack } = await import('../local/stack');
  const { ensureQueue, localSqsClient } = await import('../local/sqs');
  const { queues } = await import('../../shared/queues');
  log(`generating a SAF-T file of ${lineCount} lines`);
  const file = await generateFile(dataDir);
  const bytes = readFileSync(file);
  log(`file: ${round(statSync(file).size / 1024 / 1024, 1)} MiB`);
  log('starting the local stack (in memory, free ports)');
  const stack = await startLocalStack({ port: 0, authPort: 0, dataDir, onProgress: (message) => log(`stack: ${message}`) });
  try {
    const info: StackInfo = stack.info;
    const client = info.clients.find((c) => c.name === 'a-system')!;
    const tokenResponse = await fetch(info.authUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    const http = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${info.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...(method !== 'GET' && { 'idempotency-key': crypto.randomUUID() }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };
    const expect = <T extends { status: number; body: Record<string, never> }>(result: T, status: number, what: string): T['body'] => {
      if (result.status !== status) throw new Error(`${what}: expected ${status}, got ${result.status}: ${JSON.stringify(result.body).slice(0, 500)}`);
      return result.body;
    };
    const newCompany = async (name: string) =>
      expect(await http('POST', '/v1/companies', { displayName: `${name} ${crypto.randomUUID().slice(0, 8)} AS`, accountingSystem: 'Api', organizationNumber }), 201, 'create company').id as string;

    // -- SAF-T: declare, PUT, start onto a parked queue, then the worker alone in its own process.
    const saftCompany = await newCompany('Bench SAF-T');
    const declared = expect(
      await http('POST', `/v1/companies/${saftCompany}/imports/saft`, { fileName: 'bench-saft.xml', sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }),
      201,
      'declare',
    );
    const put = await fetch(declared.upload.url, { method: 'PUT', headers: declared.upload.headers, body: bytes });
    if (put.status !== 200) throw new Error(`PUT answered ${put.status}`);
    const parked = await ensureQueue(localSqsClient(info.internal.sqsEndpoint), { name: 'bench-saft-parked', visibilityTimeoutSeconds: 900, maxReceiveCount: 5 });
    const queueEnv = queues.find((queue) => queue.name === 'imports')!.urlEnv;
    const ownQueue = process.env[queueEnv];
    process.env[queueEnv] = parked.url;
    try {
      expect(await http('POST', `/v1/companies/${saftCompany}/imports/saft/${declared.id}/start`, {}), 202, 'start');
    } finally {
      process.env[queueEnv] = ownQueue;
    }
    const stackFile = join(dataDir, 'stack.json');
    writeFileSync(stackFile, JSON.stringify(info));
    const bundle = join(dataDir, 'bench-worker.mjs');
    await bundleAsLambda('infra/tools/bench-worker.ts', bundle);
    // Beside it what the Lambda gets beside its bundle (the XSDs, xmllint-wasm), so validation is measured too.
    for (const asset of bundledAssets['functions/import-worker/handler.ts'] ?? []) copyFileSync(asset, join(dataDir, basename(asset)));
    log('SAF-T: the worker alone applies the file');
    const { stdout } = await promisify(execFile)(process.execPath, [bundle, stackFile, JSON.stringify({ saftImportId: declared.id })], { encoding: 'utf8', maxBuffer: 1 << 20, timeout: deadlineMs });
    const worker = JSON.parse(stdout.trim().split('\n').at(-1)!) as { baselineRss: number; peakRss: number; ms: number };
    const saft = expect(await http('GET', `/v1/companies/${saftCompany}/imports/saft/${declared.id}`), 200, 'read');
    if (saft.status !== 'succeeded' || saft.report.counts.lines !== lineCount) throw new Error(`SAF-T import ended ${saft.status}: ${JSON.stringify(saft.problems)}`);

    // -- The six-kind imports of the same lines, over HTTP, each polled until it succeeded.
    const sixCompany = await newCompany('Bench six kinds');
    const { chart, batches } = sixKindBodies();
    const waitFor = async (importId: string) => {
      const deadline = Date.now() + deadlineMs;
      for (;;) {
        const one = expect(await http('GET', `/v1/companies/${sixCompany}/imports/${importId}`), 200, 'poll');
        if (one.status === 'succeeded') return;
        if (one.status === 'failed' || Date.now() > deadline) throw new Error(`import ${importId} ended ${one.status}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    log('six kinds: the chart, then GL-line imports of 10,000');
    const sixStarted = performance.now();
    await waitFor(expect(await http('POST', `/v1/companies/${sixCompany}/imports/accounts`, chart), 202, 'chart').id);
    for (const lines of batches) await waitFor(expect(await http('POST', `/v1/companies/${sixCompany}/imports/general-ledger-lines`, { year, lines }), 202, 'lines').id);
    const sixMs = performance.now() - sixStarted;

    const results = {
      lines: lineCount,
      fileMiB: round(bytes.length / 1024 / 1024, 1),
      saft: { ms: worker.ms, linesPerSecond: round(lineCount / (worker.ms / 1000)), peakRssMb: round(worker.peakRss / 1024 / 1024), baselineRssMb: round(worker.baselineRss / 1024 / 1024), schemaValidation: saft.report.schemaValidation },
      sixKinds: { ms: round(sixMs), linesPerSecond: round(lineCount / (sixMs / 1000)) },
      goal: { peakRssMb: 512, met: worker.peakRss <= 512 * 1024 * 1024 },
      cores: os.cpus().length,
      node: process.version,
    };
    console.log(`\nSAF-T import of ${lineCount} lines (${results.fileMiB} MiB), ${results.cores} cores, Node ${process.version}\n`);
    console.log(`  SAF-T flow (worker alone, both passes): ${results.saft.linesPerSecond} lines/s (${round(worker.ms / 1000, 1)} s)`);
    console.log(`  six-kind imports over HTTP:             ${results.sixKinds.linesPerSecond} lines/s (${round(sixMs / 1000, 1)} s)`);
    console.log(`  worker peak RSS: ${results.saft.peakRssMb} MB (at start ${results.saft.baselineRssMb} MB; goal <= 512 MB: ${results.goal.met ? 'pass' : 'FAIL'})`);
    console.log(`\nResults: ${writeBenchResults('saft', results)}`);
    return results.goal.met ? 0 : 1;
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/** The generated file alone (to check it against the XSD). */
export const generateSaftFile = (dir: string, lines: number): Promise<string> => {
  setLines(lines);
  return generateFile(dir);
};

/** For infra/tools/bench.ts: one run of the given size; answers the exit code. */
export const benchSaft = (lines: number): Promise<number> => {
  setLines(lines);
  return main();
};

if (process.argv[1]?.endsWith('bench-saft.ts')) {
  const args = readCli({
    command: 'bench:saft',
    summary: 'A generated SAF-T file through the SAF-T flow (the worker alone, its peak RSS) and through the six-kind imports of the same lines; writes .local/bench/saft.json.',
    options: { lines: { type: 'string', default: '100000', description: 'GL lines in the generated file' } },
  });
  setLines(Number(args.lines));
  runBench(main);
}
