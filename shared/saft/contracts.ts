import { lazySchema } from '../platform/lazy-schema';
import type { OperationContract } from '../api/operation';
import { UuidSchema } from '../platform/schemas';
import * as z from '../platform/zod';
import { CreatedSaftImportSchema, CreateSaftImportSchema, SaftImportPageSchema, SaftImportSchema, SaftListQuerySchema, SaftParamsSchema, StartSaftImportSchema } from './schemas';

const companyParams = /* @__PURE__ */ lazySchema(() => z.object({ companyId: UuidSchema }));
const saftNotFound = 'not_found: no such SAF-T import, or its company is outside your reach';

/** Request and response shapes of the SAF-T import operations (in the imports group), keyed by operationId. */
export const saftContracts = {
  createSaftImport: {
    description:
      "Step 1 of 3 of a SAF-T Financial import (versions 1.10 and 1.30): declares the file (name, exact size up to 200 MiB, SHA-256) and answers the SAF-T import (`status` `awaiting_upload`) with a presigned **PUT** (`upload`: `url`, `headers`, `expiresAt`, 15 minutes) bound to the size and checksum. PUT the XML there, then start the import. The file brings a company's chart of accounts (each fiscal year), opening balances, customers and suppliers (sub-ledgers), analysis types (dimensions) and GL lines in one step, under the rules of the six imports. Errors: **409** `conflict` `company_not_api_managed`; **422** `validation_failed` (e.g. `sizeBytes` over 200 MiB).",
    params: companyParams,
    body: CreateSaftImportSchema,
    requestExample: { fileName: 'SAF-T Financial_999999999_20161125213512.xml', sizeBytes: 17012, sha256: 'f2ca1bb6c7e907d06dafe4687e579fce76b37e4e93b7605022da52e6ccc26fd2' },
    responses: { 201: { description: 'The SAF-T import (awaiting_upload) and where to PUT the file', schema: CreatedSaftImportSchema } },
    problems: { 409: 'conflict: reason company_not_api_managed' },
  },
  startSaftImport: {
    description:
      "Step 3 of 3: checks the uploaded file and queues its import as a job; starting again answers the same record. Checked now: the bytes are there and match the declaration, the file is XML without a DTD, its root is `AuditFile` in the SAF-T Financial namespace with a known `AuditFileVersion`, and its organization number is the company's (unless `allowOrganizationNumberMismatch` is true). The job then reads the whole file (well-formed, complete, valid against the official XSD of its version — files up to 32 MiB; the first errors come with their line numbers) and refuses it with nothing imported, or runs the per-kind imports in order (chart of each year, dimensions, sub-ledgers, opening balances, GL lines in imports of up to 10,000 lines): `importIds` names them. Lines are merged by their id from the file (`<JournalID>/<TransactionID>-<RecordID>`; a line's tax code is the standard code the file's TaxTable maps its own code to): a corrected file updates lines in place and keeps history; lines absent from it stay, unless `deleteMissing` is true: then the company's GL lines of the file's fiscal years that the file does not hold are deleted (a `general_ledger_line_deletions` import, last in `importIds`; history kept; `report.counts.linesDeleted`), all or nothing — when one of them is in a reconciliation group or linked by a live document the job fails with `failureReason` `lines_in_use` (the ids, at most 100, in `problems`) and nothing is imported. Errors: **409** `upload_missing` (nothing uploaded yet), **409** `conflict` `job_in_flight` (an import holds a lane this import writes through; `jobId` names it) or `company_not_api_managed`; **422** `upload_mismatch` (size or checksum differ), **422** `validation_failed` with `reason` `saft_not_xml`, `saft_compressed`, `saft_dtd_refused`, `saft_not_saft` (naming the root element or namespace found), `saft_unsupported_version`, `saft_not_utf8`, or `organization_number_mismatch`.",
    params: SaftParamsSchema,
    body: StartSaftImportSchema,
    requestExample: { deleteMissing: true },
    responses: { 202: { description: 'Queued (or already started): poll the SAF-T import until succeeded or failed', schema: SaftImportSchema } },
    problems: {
      404: saftNotFound,
      409: 'upload_missing: nothing was uploaded yet; conflict: reason job_in_flight (jobId) or company_not_api_managed',
      422: 'upload_mismatch: the stored bytes differ from the declaration; validation_failed: reason saft_* (not a SAF-T Financial file) or organization_number_mismatch. Nothing is imported',
    },
  },
  getSaftImport: {
    description:
      "The SAF-T import: `status`, `failureReason` (`invalid_file`, `schema_invalid` with `problems` and their line numbers — nothing imported —, `lines_in_use` (with `deleteMissing`, lines the file no longer holds that are reconciled or linked by documents, named in `problems` with what holds them; nothing imported), `import_failed`, `company_deleted` (the company was deleted while it ran: nothing imported after that, the per-kind imports before it stay), `company_not_api_managed` (the company was moved off the `Api` accounting system while it ran: likewise), `internal_error`), the per-kind imports it ran (`importIds`, each readable at `GET .../imports/{importId}`), and the `report`: the file's header, counts per kind, control totals against the lines read, unbalanced transactions, accounts whose opening balance plus lines is not the file's closing balance, what the file holds that is not imported, and records skipped by the import rules.",
    params: SaftParamsSchema,
    responses: { 200: { description: 'The SAF-T import with its report', schema: SaftImportSchema } },
    problems: { 404: saftNotFound },
  },
  listSaftImports: {
    description: 'SAF-T imports of the company, newest first.',
    params: companyParams,
    query: SaftListQuerySchema,
    responses: { 200: { description: 'SAF-T imports, newest first', schema: SaftImportPageSchema } },
  },
} satisfies Record<string, OperationContract>;
