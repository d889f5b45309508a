import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { v5 as uuidv5 } from 'uuid';
import { createRequire } from 'node:module';
import type { validateXML as ValidateXml } from 'xmllint-wasm';
import { companyRepository } from '../companies/repository';
import { companyDeletedReason, companyNotApiManagedReason } from '../imports/completion';
import { importRepository } from '../imports/repository';
import type { ImportKind, ImportKindName } from '../imports/kind';
import { acceptImport } from '../imports/pipeline';
import { processImport } from '../imports/worker';
import { jobRepository } from '../jobs/repository';
import { logger } from '../platform/logger';
import { ProblemError } from '../platform/problem';
import { maxImportRows } from '../imports/fields';
import { glLineRepository } from '../ledger/general-ledger/repository';
import { checkLinesNotInUse } from '../ledger/general-ledger/service';
import { SaftMapping, type SaftLine } from './mapping';
import { parseSaft, SaftFileError, type SaftVersion } from './parser';
import { saftRepository, type SaftItem } from './repository';
import { maxSchemaValidatedBytes, type SaftImport, type SaftReport } from './schemas';
import { finishSaftImport, readSaftObject, saftCompanyDeletedProblem, saftLane, saftNotApiManagedProblem } from './service';

const maxProblems = 20;
/** Receives before a SAF-T import that keeps failing on the service side is failed (the imports queue's). */
const maxReceives = 5;

/** A per-kind import of the SAF-T import failed: the SAF-T import fails (the imports before it stay applied). */
class StepFailed extends Error {}
/** The company was deleted: the SAF-T import fails and imports nothing more. */
class CompanyDeleted extends Error {}
/** The company was moved off the Api accounting system: the SAF-T import fails and imports nothing more. */
class CompanyNotApiManaged extends Error {}
/** Lines that deleteMissing would delete are reconciled or linked by documents: nothing is imported. */
type LineInUse = { id: string; reconciliationGroupId?: string; documentIds?: string[] };

/** What holds a line in use: its reconciliation group and/or the documents linking it. */
const holderOf = ({ reconciliationGroupId, documentIds }: LineInUse): string =>
  [reconciliationGroupId && `group ${reconciliationGroupId}`, documentIds?.length && `documents ${documentIds.join(', ')}`].filter(Boolean).join(', ');

/** A lines_in_use failure's problems: what happened, then the ids (at most 100) in messages of at most 2,000 characters. */
const linesInUseProblems = (lead: string, inUse: readonly LineInUse[]): SaftImport['problems'] => {
  const messages = [`${lead} In use (id: what holds it):`];
  for (const line of inUse.slice(0, 100)) {
    const entry = ` ${line.id}: ${holderOf(line)};`;
    if (messages.at(-1)!.length + entry.length > 2000) messages.push('In use (id: what holds it):');
    messages[messages.length - 1] += entry;
  }
  return messages.map((message) => ({ line: null, message }));
};

class LinesInUse extends Error {
  readonly problems: SaftImport['problems'];

  constructor(problems: SaftImport['problems']) {
    super('lines_in_use');
    this.problems = problems;
  }
}
/** The file is refused (not well-formed, truncated, XSD errors): nothing is imported. */
class FileRefused extends Error {
  readonly reason: string;
  readonly problems: SaftImport['problems'];

  constructor(reason: string, problems: SaftImport['problems']) {
    super(reason);
    this.reason = reason;
    this.problems = problems;
  }
}

const xsdFile = (version: SaftVersion) => `Norwegian_SAF-T_Financial_Schema_v_${version}.xsd`;
/** The XSD of a version: beside the bundle (infra/stacks/bundled-assets.ts copies them), else shared/saft/xsd/. */
const xsdPath = (version: SaftVersion): string => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const beside = path.join(here, xsdFile(version));
  return existsSync(beside) ? beside : path.join(here, 'xsd', xsdFile(version));
};

/**
 * xmllint-wasm, loaded at run time: it starts a worker thread from its own directory, so it
 * cannot be bundled. Beside the bundle in the Lambda (infra/stacks/bundled-assets.ts copies its
 * three files), else from node_modules. The package name is built at run time so esbuild leaves it alone.
 */
const loadXmllint = (): { validateXML: typeof ValidateXml } => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const beside = path.join(here, 'index-node.js');
  const require = createRequire(import.meta.url);
  return require(existsSync(beside) && existsSync(path.join(here, 'xmllint.wasm')) ? beside : ['xmllint', 'wasm'].join('-')) as { validateXML: typeof ValidateXml };
};

/** Validates the file against the official XSD of its version (files up to maxSchemaValidatedBytes; xmllint-wasm holds them in memory). */
export const validateAgainstXsd = async (xml: Uint8Array, version: SaftVersion): Promise<SaftImport['problems']> => {
  const schema = await readFile(xsdPath(version), 'utf8');
  // WebAssembly pages of 64 KiB: room for the file and the schema (the default is 32 MiB in all).
  const maxMemoryPages = Math.min(65536, Math.ceil((xml.length * 3 + 64 * 1024 * 1024) / 65536));
  const result = await loadXmllint().validateXML({ xml: [{ fileName: 'saft.xml', contents: xml }], schema: [{ fileName: xsdFile(version), contents: schema }], stream: true, maxMemoryPages });
  if (result.valid) return [];
  return result.errors.slice(0, maxProblems).map((error) => ({
    line: error.loc?.lineNumber ?? null,
    message: (error.message ?? error.rawMessage).slice(0, 1000),
  }));
};

const readAll = async (key: string): Promise<Uint8Array> => {
  const chunks: Buffer[] = [];
  for await (const chunk of await readSaftObject(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * The SAF-T import's job, on the imports queue ({ saftImportId }). Reads the whole file first
 * (streamed: well-formed, complete, its version's XSD, the report) and refuses it with nothing
 * imported; then applies it as per-kind imports, in order: the chart of each year, dimensions,
 * sub-ledgers, opening balances, then the GL lines streamed a second time in imports of up to
 * 10,000 lines. Each per-kind import has an id derived from the SAF-T import and its step, so a
 * redelivery finds the steps done and resumes the one under way. Returns when terminal.
 */
export const createSaftProcessor = (kinds: readonly ImportKind[], postFetchEngineNames: readonly string[]) => {
  const byName = new Map(kinds.map((kind) => [kind.name, kind]));
  const kind = (name: ImportKindName) => byName.get(name)!;

  return async (saftImportId: string, receiveCount: number): Promise<void> => {
    logger.appendKeys({ saftImportId });
    const item = await saftRepository.get(saftImportId);
    if (!item || (item.status !== 'queued' && item.status !== 'running')) return;
    try {
      const report = await run(item, receiveCount >= maxReceives);
      await finishSaftImport(item, { status: 'succeeded', failureReason: null, problems: [], report });
    } catch (error) {
      if (error instanceof LinesInUse) return void (await finishSaftImport(item, { status: 'failed', failureReason: 'lines_in_use', problems: error.problems }));
      if (error instanceof FileRefused) return void (await finishSaftImport(item, { status: 'failed', failureReason: error.reason, problems: error.problems }));
      if (error instanceof CompanyDeleted) return void (await finishSaftImport(item, { status: 'failed', failureReason: companyDeletedReason, problems: [saftCompanyDeletedProblem] }));
      if (error instanceof CompanyNotApiManaged) return void (await finishSaftImport(item, { status: 'failed', failureReason: companyNotApiManagedReason, problems: [saftNotApiManagedProblem] }));
      if (error instanceof StepFailed) return void (await finishSaftImport(item, { status: 'failed', failureReason: 'import_failed', problems: [{ line: null, message: error.message }] }));
      if (receiveCount < maxReceives) throw error; // redelivered (e.g. a lane taken by another import meanwhile)
      logger.error('SAF-T import failed', { error: error as Error });
      await finishSaftImport(item, { status: 'failed', failureReason: 'internal_error', problems: [{ line: null, message: 'The import failed on the service side; start a new one.' }] });
    }
  };

  async function run(item: SaftItem, lastDelivery: boolean): Promise<SaftReport> {
    const requireLiveCompany = async () => {
      const company = await companyRepository.getLive(item.companyId);
      if (!company) throw new CompanyDeleted();
      if (company.accountingSystem !== 'Api') throw new CompanyNotApiManaged();
    };
    await requireLiveCompany();
    await jobRepository.markRunning(item.jobId!, new Date().toISOString()).catch(() => undefined);
    // Pass 1: the whole file, nothing written (with deleteMissing, the ids of its lines per year).
    const fileLineIds = new Map<number, Set<string>>();
    const mapping = new SaftMapping(
      item.deleteMissing
        ? ({ year, line }) => {
            const ids = fileLineIds.get(year) ?? new Set<string>();
            ids.add(String(line.id));
            fileLineIds.set(year, ids);
          }
        : undefined,
    );
    const stream = await readSaftObject(item.objectKey);
    try {
      await parseSaft(stream, mapping);
    } catch (error) {
      if (error instanceof SaftFileError) throw new FileRefused(`invalid_file`, [{ line: error.line ?? null, message: error.message }]);
      throw error;
    } finally {
      stream.destroy();
    }
    let schemaValidation: SaftReport['schemaValidation'] = 'skipped_over_size_limit';
    if (item.sizeBytes <= maxSchemaValidatedBytes) {
      const problems = await validateAgainstXsd(await readAll(item.objectKey), mapping.version!).catch((error: unknown) => {
        logger.error('XSD validation could not run', { error: error as Error });
        return undefined;
      });
      if (problems?.length) throw new FileRefused('schema_invalid', problems);
      schemaValidation = problems ? 'valid' : 'unavailable';
    }
    const openingBalances = mapping.openingBalances();
    const report = mapping.report(openingBalances.length, schemaValidation);
    const missing = item.deleteMissing ? await missingLines(item.companyId, [...mapping.years].sort(), fileLineIds, (item.importIds?.length ?? 0) > 0) : new Map<number, string[]>();
    // On a redelivery some may be deleted already: the first count stands.
    report.counts.linesDeleted = item.report?.counts.linesDeleted ?? [...missing.values()].reduce((sum, ids) => sum + ids.length, 0);
    const importIds: string[] = [];
    await saftRepository.recordProgress(item.id, { report, importIds });

    const step = async (key: string, name: ImportKindName, body: Record<string, unknown>): Promise<void> => {
      const importId = uuidv5(key, item.id);
      let existing = await importRepository.get(importId);
      if (!existing) {
        await requireLiveCompany(); // no import (nor its import.requested) for a deleted company
        const importKind = kind(name);
        try {
          const parsed = importKind.bodySchema.parse(body);
          // The kind's own check, as a submission over the API runs it (a deletion: none of its lines reconciled meanwhile).
          await importKind.precheck?.(item.companyId, parsed);
          await acceptImport(item.companyId, item, importKind, parsed, body, { importId, enqueue: false });
        } catch (error) {
          if (!(error instanceof ProblemError)) throw error;
          // The company changed after requireLiveCompany read it (acceptImport checks it again).
          if (error.problem.reason === companyNotApiManagedReason) throw new CompanyNotApiManaged();
          if (error.problem.status === 404) throw new CompanyDeleted();
          if (error.problem.reason === 'job_in_flight') throw new Error(`Step ${key}: ${error.message}`); // a busy lane: retried on redelivery
          if (error.problem.reason === 'lines_in_use') {
            // Reconciled after the check before the first write: the file's imports are applied, these lines stay.
            const inUse = (error.problem.inUse ?? []) as LineInUse[];
            throw new LinesInUse(linesInUseProblems(`${inUse.length} GL line${inUse.length === 1 ? '' : 's'} the file no longer holds ${inUse.length === 1 ? 'was' : 'were'} put in reconciliation groups or linked by documents while the file was imported: ${inUse.length === 1 ? 'it stays' : 'they stay'}; the file's imports before the deletion are applied. Delete the groups (or the documents) and start the file again to delete them.`, inUse));
          }
          throw new StepFailed(`Step ${key}: ${error.message}; the imports before it are applied.`);
        }
        existing = await importRepository.get(importId);
      }
      if (existing!.status === 'queued') {
        await processImport(importId, byName, postFetchEngineNames, { lastDelivery });
        existing = await importRepository.get(importId);
      }
      importIds.push(importId);
      await saftRepository.recordProgress(item.id, { importIds });
      if (existing!.failureReason === companyDeletedReason) throw new CompanyDeleted();
      if (existing!.failureReason === companyNotApiManagedReason) throw new CompanyNotApiManaged();
      if (existing!.status === 'failed') throw new StepFailed(`The ${name} import ${importId} (${key}) failed: ${existing!.failureReason ?? 'see the import'}; the imports before it are applied.`);
      await jobRepository.extendLease(item.companyId, saftLane, item.jobId!, Date.now()).catch(() => undefined);
    };
    const inChunks = async <T>(key: string, name: ImportKindName, rows: T[], body: (rows: T[]) => Record<string, unknown>) => {
      for (let i = 0; i < rows.length; i += maxImportRows) await step(`${key}:${i / maxImportRows}`, name, body(rows.slice(i, i + maxImportRows)));
    };

    const accounts = [...mapping.accounts.values()].map((a) => a.row);
    for (const year of [...mapping.years].sort()) await inChunks(`accounts:${year}`, 'accounts', accounts, (rows) => ({ year, accounts: rows }));
    await inChunks('dimensions', 'dimensions', [...mapping.dimensions.values()], (rows) => ({ dimensions: rows }));
    await inChunks('sub-ledgers', 'sub_ledgers', mapping.subLedgers, (rows) => ({ subLedgers: rows }));
    const startYear = mapping.selectionStartYear();
    if (startYear) await inChunks(`opening-balances:${startYear}`, 'opening_balances', openingBalances, (rows) => ({ year: startYear, lines: rows }));

    // Pass 2: the lines, applied while the file streams (bounded memory: one import's lines per year).
    const pending = new Map<number, { seq: number; lines: SaftLine['line'][] }>();
    const flush = async (year: number, all: boolean) => {
      const batch = pending.get(year)!;
      while (batch.lines.length >= maxImportRows || (all && batch.lines.length)) {
        const lines = batch.lines.splice(0, maxImportRows);
        await step(`general-ledger-lines:${year}:${batch.seq++}`, 'general_ledger_lines', { year, lines });
      }
    };
    const second = await readSaftObject(item.objectKey);
    try {
      await parseSaft(
        second,
        new SaftMapping(({ year, line }) => {
          const batch = pending.get(year) ?? { seq: 0, lines: [] };
          batch.lines.push(line);
          pending.set(year, batch);
        }),
        {
          afterChunk: async () => {
            for (const year of pending.keys()) await flush(year, false);
          },
        },
      );
    } finally {
      second.destroy();
    }
    for (const year of pending.keys()) await flush(year, true);
    // Last, the lines the file no longer holds (checked not in use before anything was written).
    // Keyed by their ids: a redelivery lists the lines still there and deletes those.
    for (const [year, ids] of missing) {
      for (let i = 0; i < ids.length; i += maxImportRows) {
        const rows = ids.slice(i, i + maxImportRows);
        await step(`general-ledger-line-deletions:${year}:${createHash('sha256').update(rows.join('\n')).digest('hex')}`, 'general_ledger_line_deletions', { year, ids: rows });
      }
    }
    return report;
  }

  /**
   * deleteMissing: per year of the file, the company's live GL lines whose id the file does not
   * hold. All or nothing: when any is reconciled, LinesInUse (the first 100, as the deletion import names them).
   */
  async function missingLines(companyId: string, years: number[], fileLineIds: Map<number, Set<string>>, resumed: boolean): Promise<Map<number, string[]>> {
    const missing = new Map<number, string[]>();
    const inUse: LineInUse[] = [];
    let inUseCount = 0;
    for (const year of years) {
      const inFile = fileLineIds.get(year) ?? new Set<string>();
      const ids = (await glLineRepository.liveSourceLineIds(companyId, year)).filter((id) => !inFile.has(id));
      if (!ids.length) continue;
      missing.set(year, ids);
      for (let i = 0; i < ids.length; i += maxImportRows) {
        try {
          await checkLinesNotInUse(companyId, year, ids.slice(i, i + maxImportRows));
        } catch (error) {
          if (!(error instanceof ProblemError) || error.problem.reason !== 'lines_in_use') throw error;
          const named = (error.problem.inUse ?? []) as LineInUse[];
          inUseCount += named.length;
          inUse.push(...named.slice(0, 100 - inUse.length));
        }
      }
    }
    if (!inUse.length) return missing;
    const imported = resumed ? 'the imports of the file applied before this delivery stay, nothing more was imported' : 'nothing was imported';
    throw new LinesInUse(linesInUseProblems(`${inUseCount} GL line${inUseCount === 1 ? '' : 's'} the file no longer holds ${inUseCount === 1 ? 'is' : 'are'} in reconciliation groups or linked by documents; ${imported}. Delete the groups (or the documents) first, or start without deleteMissing.`, inUse));
  }
};
