import { createHash, randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { autoReconcile } from '../../shared/bank/auto-reconciliation';
import { companyKeys } from '../../shared/companies/keys';
import { companyRepository } from '../../shared/companies/repository';
import { importKind, importKinds } from '../../shared/composition/import-kinds';
import { postFetchEngineNames } from '../../shared/composition/post-fetch-engines';
import { documentDeclarationKeys } from '../../shared/documents/keys';
import { documentRepository } from '../../shared/documents/repository';
import { completeUpload } from '../../shared/documents/service';
import { acceptImport } from '../../shared/imports/pipeline';
import { createImportWorker, processImport } from '../../shared/imports/worker';
import { dynamo, tableName } from '../../shared/platform/aws';
import { logger } from '../../shared/platform/logger';
import { parseLosslessJson } from '../../shared/platform/lossless-json';
import { api, expectProblem } from '../support/api';
import { ingestOk, lineIdsOf, statementXml, transactionsByReference, validAccountNumber, waitForPostFetch } from '../support/bank';
import { chartOf, importAndWait, newApiCompany, submitImport } from '../support/ledger';
import { observingCalls } from '../support/sdk-calls';
import { testStack } from '../support/stack';
import { sqsEventOf } from '../support/sqs-event';

/**
 * Import rule 11 for GL lines that other work holds: a line linked by a document is in use like a
 * reconciled one, and a deletion is all or nothing when reconciliation or a document completion
 * races it (the deletion claims its lines and holds the GL-lines lane).
 */
const year = 2026;
const kinds = () => new Map(importKinds.map((kind) => [kind.name, kind]));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const pdfBytes = () => Buffer.from(`%PDF-1.7\n% ${randomUUID()}\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n`);

/** A company with the 2026 chart and GL lines on 1920 (waited past their post-fetch engines); answers the lineIds. */
const books = async (lines: { id: string; amount: string; transactionDate?: string }[]) => {
  const companyId = await newApiCompany();
  await importAndWait(companyId, 'accounts', chartOf(year, ['1920', '3000']));
  const done = await importAndWait(companyId, 'general-ledger-lines', { year, lines: lines.map((line) => ({ accountCode: '1920', period: 2, ...line })) });
  expect(done.body).toMatchObject({ status: 'succeeded', rowsFailed: 0 });
  await waitForPostFetch(companyId, done.body.id);
  return { companyId, lineIds: await lineIdsOf(companyId, year, '1920') };
};

/** Declares a PDF linking these GL lines and PUTs its bytes; not completed. */
const declareAndPut = async (companyId: string, lineIds: string[]) => {
  const bytes = pdfBytes();
  const declared = await api('POST', `/v1/companies/${companyId}/documents`, {
    as: 'a-system',
    body: { fileName: 'kvittering.pdf', contentType: 'application/pdf', sizeBytes: bytes.length, sha256: sha256(bytes), links: { lineIds } },
  });
  expect(declared.status).toBe(200);
  return { documentId: declared.body.documentId as string, put: () => fetch(declared.body.upload.url, { method: 'PUT', headers: declared.body.upload.headers, body: bytes }) };
};

const complete = (documentId: string) => api('POST', `/v1/documents/${documentId}/complete`, { as: 'a-system' });

/** A deletion accepted (its lane taken) with its message to no queue: the test runs the worker. */
const acceptDeletion = async (companyId: string, ids: string[]) => {
  const kind = importKind('general_ledger_line_deletions');
  const body = { year, ids };
  return acceptImport(companyId, (await companyRepository.get(companyId))!, kind, kind.bodySchema.parse(parseLosslessJson(JSON.stringify(body))), body, { enqueue: false });
};

const liveSourceIds = async (companyId: string) =>
  (await api('GET', `/v1/companies/${companyId}/general-ledger/lines?year=${year}`, { as: 'a-system' })).body.data.map((line: { sourceLineId: string }) => line.sourceLineId).sort();

beforeAll(() => {
  testStack();
});

describe('GL lines linked by documents', () => {
  it('a deletion naming a line a live document links answers 409 lines_in_use naming the document, nothing deleted; once the document is soft-deleted the line is deleted, and the restored document still names it', async () => {
    const { companyId, lineIds } = await books([{ id: 'L1', amount: '100.00' }, { id: 'L2', amount: '-100.00' }]);
    const upload = await declareAndPut(companyId, [lineIds.get('L1')!]);
    expect((await upload.put()).status).toBe(200);
    expect((await complete(upload.documentId)).status).toBe(200);

    const refused = await submitImport(companyId, 'general-ledger-lines/deletions', { year, ids: ['L2', 'L1'] });
    expectProblem(refused, 409, 'conflict');
    expect(refused.body).toMatchObject({ reason: 'lines_in_use', inUse: [{ id: 'L1', documentIds: [upload.documentId] }] });
    expect(refused.body.inUse[0]).not.toHaveProperty('reconciliationGroupId');
    expect(await liveSourceIds(companyId)).toEqual(['L1', 'L2']);

    // A line no document links is deleted as before.
    const deleted = await importAndWait(companyId, 'general-ledger-lines/deletions', { year, ids: ['L2'] });
    expect(deleted.body).toMatchObject({ status: 'succeeded', rowsDeleted: 1 });
    expect(await liveSourceIds(companyId)).toEqual(['L1']);

    // A soft-deleted document holds nothing (a line it ever linked would stay for good); restored, it still names the line.
    expect((await api('DELETE', `/v1/documents/${upload.documentId}`, { as: 'a-system' })).status).toBe(200);
    const again = await importAndWait(companyId, 'general-ledger-lines/deletions', { year, ids: ['L1'] });
    expect(again.body).toMatchObject({ status: 'succeeded', rowsDeleted: 1 });
    expect(await liveSourceIds(companyId)).toEqual([]);
    const restored = await api('POST', `/v1/documents/${upload.documentId}/restore`, { as: 'a-system' });
    expect(restored.body.links.lineIds).toEqual([lineIds.get('L1')]);
  });

  it('a document linked after the deletion was accepted: its completion answers 409 job_in_flight, the deletion fails lines_in_use when applied, then the completion succeeds', async () => {
    const { companyId, lineIds } = await books([{ id: 'K1', amount: '40.00' }, { id: 'K2', amount: '-40.00' }]);
    const accepted = await acceptDeletion(companyId, ['K1', 'K2']);
    const upload = await declareAndPut(companyId, [lineIds.get('K1')!]);
    // Stored as expired so that the stack's own completion (the S3 notification) refuses it before it links anything.
    await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: documentDeclarationKeys(upload.documentId), UpdateExpression: 'SET completeBy = :at', ExpressionAttributeValues: { ':at': new Date(Date.now() - 1000).toISOString() } }));
    expect((await upload.put()).status).toBe(200);
    const declaration = { ...(await documentRepository.getDeclaration(upload.documentId))!, completeBy: new Date(Date.now() + 60_000).toISOString() };

    await expect(completeUpload(declaration)).rejects.toMatchObject({ problem: { status: 409, reason: 'job_in_flight', jobId: accepted.jobId } });
    expectProblem(await api('GET', `/v1/documents/${upload.documentId}`, { as: 'a-system' }), 404, 'not_found');

    await processImport(accepted.id, kinds(), postFetchEngineNames);
    const record = await api('GET', `/v1/companies/${companyId}/imports/${accepted.id}`, { as: 'a-system' });
    expect(record.body).toMatchObject({ status: 'failed', failureReason: 'lines_in_use', rowsFailed: 1, rowsDeleted: 0 });
    expect(record.body.sampleErrors).toEqual([`line 1: line K1 is linked by document ${upload.documentId}: nothing was deleted`]);
    expect(await liveSourceIds(companyId)).toEqual(['K1', 'K2']);

    expect((await completeUpload(declaration)).links.lineIds).toEqual([lineIds.get('K1')]);
  });

  it('a completion that passed its lane check before the deletion was accepted and commits while it is applied: the deletion sees the document and fails whole', async () => {
    const { companyId, lineIds } = await books([{ id: 'M1', amount: '70.00' }, { id: 'M2', amount: '-70.00' }]);
    const upload = await declareAndPut(companyId, [lineIds.get('M2')!]);
    await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: documentDeclarationKeys(upload.documentId), UpdateExpression: 'SET completeBy = :at', ExpressionAttributeValues: { ':at': new Date(Date.now() - 1000).toISOString() } }));
    expect((await upload.put()).status).toBe(200);
    const declaration = { ...(await documentRepository.getDeclaration(upload.documentId))!, completeBy: new Date(Date.now() + 60_000).toISOString() };

    // Right before the completion's transaction: the deletion is accepted and applied.
    let deletionId: string | undefined;
    const document = await observingCalls(
      dynamo(),
      async (commandName, input) => {
        if (deletionId || commandName !== 'TransactWriteItemsCommand' || !JSON.stringify(input).includes(upload.documentId)) return;
        const accepted = await acceptDeletion(companyId, ['M1', 'M2']);
        deletionId = accepted.id;
        await processImport(accepted.id, kinds(), postFetchEngineNames);
      },
      () => completeUpload(declaration),
    );
    expect(document.id).toBe(upload.documentId);
    const record = await api('GET', `/v1/companies/${companyId}/imports/${deletionId}`, { as: 'a-system' });
    expect(record.body).toMatchObject({ status: 'failed', failureReason: 'lines_in_use', rowsDeleted: 0 });
    expect(record.body.sampleErrors).toEqual([`line 2: line M2 is linked by document ${upload.documentId}: nothing was deleted`]);
    expect(await liveSourceIds(companyId)).toEqual(['M1', 'M2']);
  });
});

describe('GL-line deletions racing auto-reconciliation', () => {
  it('auto-reconciliation running after the deletion checked its lines, before it deletes them, takes none: the deletion deletes every line', async () => {
    // No bank account while the lines are imported, so their own post-fetch run matches nothing.
    const { companyId } = await books([{ id: 'A1', amount: '100.00' }, { id: 'A2', amount: '250.00', transactionDate: `${year}-02-05` }]);
    const accountNumber = validAccountNumber('1207' + String(Math.floor(Math.random() * 1e6)).padStart(6, '0'));
    const ingested = await ingestOk(companyId, statementXml(accountNumber, `ST-${accountNumber}-1`, [{ reference: 'B1', bookingDate: `${year}-02-05`, amount: '250.00', description: 'Innbetaling' }]), '--gl-account', '1920');
    const bankAccountId = ingested.statements[0]!.bankAccountId;

    const accepted = await acceptDeletion(companyId, ['A1', 'A2']);
    let report: Awaited<ReturnType<typeof autoReconcile>> | undefined;
    let engine: Promise<void> | undefined;
    await observingCalls(
      dynamo(),
      async (commandName, input) => {
        // The rows' deletions (the writes stamp lastOutcome) wait for the engine, run once here, as a post-fetch run queued before would.
        if (!commandName.startsWith('Update') || !JSON.stringify(input).includes('lastOutcome')) return;
        engine ??= autoReconcile(companyId, year).then((answer) => void (report = answer));
        await engine;
      },
      () => processImport(accepted.id, kinds(), postFetchEngineNames),
    );
    expect(report).toMatchObject({ unreconciledTransactions: 1, matched: 0 });
    const record = await api('GET', `/v1/companies/${companyId}/imports/${accepted.id}`, { as: 'a-system' });
    expect(record.body).toMatchObject({ status: 'succeeded', rowsDeleted: 2, rowsFailed: 0 });
    expect(await liveSourceIds(companyId)).toEqual([]);
    expect((await transactionsByReference(companyId, bankAccountId)).get('B1')!.reconciliationStatus).toBe('unreconciled');
  });

  it('after a refused deletion its claims are gone: the lines are reconciled as before', async () => {
    const { companyId, lineIds } = await books([{ id: 'C1', amount: '30.00' }, { id: 'C2', amount: '60.00', transactionDate: `${year}-02-06` }]);
    const upload = await declareAndPut(companyId, [lineIds.get('C1')!]);
    expect((await upload.put()).status).toBe(200);
    expect((await complete(upload.documentId)).status).toBe(200);
    const accepted = await acceptDeletion(companyId, ['C1', 'C2']);
    await processImport(accepted.id, kinds(), postFetchEngineNames);
    expect((await api('GET', `/v1/companies/${companyId}/imports/${accepted.id}`, { as: 'a-system' })).body).toMatchObject({ status: 'failed', failureReason: 'lines_in_use' });
    const accountNumber = validAccountNumber('1208' + String(Math.floor(Math.random() * 1e6)).padStart(6, '0'));
    await ingestOk(companyId, statementXml(accountNumber, `ST-${accountNumber}-1`, [{ reference: 'B2', bookingDate: `${year}-02-06`, amount: '60.00', description: 'Innbetaling' }]), '--gl-account', '1920');
    expect(await autoReconcile(companyId, year)).toMatchObject({ matched: 1 });
  });
});

describe('GL-line deletions that fail after claiming their lines', () => {

  const isClaim = (commandName: string, input: Record<string, unknown>) => commandName.startsWith('Update') && String(input.UpdateExpression).startsWith('SET deletingBy');

  const moveTo = (companyId: string, accountingSystem: string) =>
    dynamo().send(new UpdateCommand({ TableName: tableName(), Key: companyKeys(companyId), UpdateExpression: 'SET accountingSystem = :system', ExpressionAttributeValues: { ':system': accountingSystem } }));

  /** A bank transaction on 1920 matching one GL line (amount, date); answers what auto-reconciliation then does. */
  const autoReconcileAgainst = async (companyId: string, prefix: string, amount: string, bookingDate: string) => {
    const accountNumber = validAccountNumber(prefix + String(Math.floor(Math.random() * 1e6)).padStart(6, '0'));
    await ingestOk(companyId, statementXml(accountNumber, `ST-${accountNumber}-1`, [{ reference: `B-${prefix}`, bookingDate, amount, description: 'Innbetaling' }]), '--gl-account', '1920');
    return autoReconcile(companyId, year);
  };

  const importRecord = async (companyId: string, importId: string) => (await api('GET', `/v1/companies/${companyId}/imports/${importId}`, { as: 'a-system' })).body;

  it('the database refusing its deletes (rejected_by_database, failed at once by the worker): its claims end with it, and auto-reconciliation takes a line it named right after', async () => {
    const { companyId } = await books([{ id: 'R1', amount: '30.00' }, { id: 'R2', amount: '80.00', transactionDate: `${year}-02-07` }]);
    const accepted = await acceptDeletion(companyId, ['R1', 'R2']);
    let claims = 0;
    logger.setLogLevel('CRITICAL'); // the refused step is logged as an error by design
    const answer = await observingCalls(
      dynamo(),
      (commandName, input) => {
        if (isClaim(commandName, input)) claims++;
        // Every row's deletion (the writes stamp lastOutcome) is refused as DynamoDB refuses an invalid item.
        if (!commandName.startsWith('Update') || !JSON.stringify(input).includes('lastOutcome')) return;
        throw Object.assign(new Error('One or more parameter values were invalid: Item size has exceeded the maximum allowed size'), { name: 'ValidationException' });
      },
      () => createImportWorker(importKinds, postFetchEngineNames)(sqsEventOf({ importId: accepted.id })),
    ).finally(() => logger.setLogLevel('ERROR'));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(claims).toBe(2);
    expect(await importRecord(companyId, accepted.id)).toMatchObject({ status: 'failed', failureReason: 'rejected_by_database' });
    expect(await liveSourceIds(companyId)).toEqual(['R1', 'R2']);
    expect(await autoReconcileAgainst(companyId, '1209', '80.00', `${year}-02-07`)).toMatchObject({ matched: 1 });
  });

  it('its company moved off Api after it claimed its lines (company_not_api_managed): its claims end with it; a redelivery after a crash in the release ends them too', async () => {
    const { companyId } = await books([{ id: 'S1', amount: '20.00' }, { id: 'S2', amount: '90.00', transactionDate: `${year}-02-08` }]);
    const accepted = await acceptDeletion(companyId, ['S1', 'S2']);
    let moved = false;
    let crashed = false;
    await expect(
      observingCalls(
        dynamo(),
        async (commandName, input) => {
          if (isClaim(commandName, input) && !moved) {
            moved = true;
            await moveTo(companyId, 'Tripletex');
          }
          // The process dies while it ends the claims, after the import failed.
          if (!crashed && commandName.startsWith('BatchGet') && JSON.stringify(input).includes('"deletingBy"')) {
            crashed = true;
            throw new Error('the process died');
          }
        },
        () => processImport(accepted.id, kinds(), postFetchEngineNames),
      ),
    ).rejects.toThrow('the process died');
    expect(await importRecord(companyId, accepted.id)).toMatchObject({ status: 'failed', failureReason: 'company_not_api_managed' });
    await moveTo(companyId, 'Api');
    // The message is delivered again: the import is failed, so only its claims are ended.
    await processImport(accepted.id, kinds(), postFetchEngineNames);
    expect(await importRecord(companyId, accepted.id)).toMatchObject({ status: 'failed', failureReason: 'company_not_api_managed' });
    expect(await liveSourceIds(companyId)).toEqual(['S1', 'S2']);
    expect(await autoReconcileAgainst(companyId, '1210', '90.00', `${year}-02-08`)).toMatchObject({ matched: 1 });
  });

  it('its company moved off Api after it claimed its lines: right after it failed, a reconciliation group made over HTTP takes a line it named', async () => {
    // No transaction dates: no automatic run pairs the lines; the group is made by hand.
    const { companyId, lineIds } = await books([{ id: 'T1', amount: '15.00' }, { id: 'T2', amount: '45.00' }]);
    const accountNumber = validAccountNumber('1211' + String(Math.floor(Math.random() * 1e6)).padStart(6, '0'));
    const ingested = await ingestOk(companyId, statementXml(accountNumber, `ST-${accountNumber}-1`, [{ reference: 'B-T', bookingDate: `${year}-02-09`, amount: '45.00', description: 'Innbetaling' }]), '--gl-account', '1920');
    const bankAccountId = ingested.statements[0]!.bankAccountId;
    const accepted = await acceptDeletion(companyId, ['T1', 'T2']);
    let moved = false;
    await observingCalls(
      dynamo(),
      async (commandName, input) => {
        if (!isClaim(commandName, input) || moved) return;
        moved = true;
        await moveTo(companyId, 'Tripletex');
      },
      () => processImport(accepted.id, kinds(), postFetchEngineNames),
    );
    expect(await importRecord(companyId, accepted.id)).toMatchObject({ status: 'failed', failureReason: 'company_not_api_managed' });
    await moveTo(companyId, 'Api');
    const transaction = (await transactionsByReference(companyId, bankAccountId)).get('B-T')!;
    const group = await api('POST', `/v1/companies/${companyId}/bank/reconciliations`, {
      as: 'a-system',
      body: { bankAccountId, year, period: 2, bankTransactionIds: [transaction.id], lineIds: [lineIds.get('T2')!] },
    });
    expect(group.status).toBe(200);
    expect(group.body.entries).toContainEqual(expect.objectContaining({ type: 'gl_line', lineId: lineIds.get('T2') }));
  });
});
