import type { OperationContract } from '../api/operation';
import {
  CompanyDeletionSchema,
  CompanyListQuerySchema,
  CompanyPageSchema,
  CompanyParamsSchema,
  CompanySchema,
  CreateCompanySchema,
  DeleteCompanySchema,
  UpdateCompanySchema,
} from './schemas';

const company = { description: 'The company', schema: CompanySchema };

/** Request and response shapes of the company operations, keyed by the route table's operationId. */
export const companyContracts = {
  listCompanies: {
    description:
      'The companies within the caller\'s reach: those of its organization and of every organization below it, deleted ones left out. Paginated by cursor: follow `pagination.next_cursor` until it is null.',
    query: CompanyListQuerySchema,
    responses: { 200: { description: 'A page of companies', schema: CompanyPageSchema } },
  },
  createCompany: {
    description:
      'Creates a company in the caller\'s organization (or in `organizationId`, which must be within reach). `accountingSystem` decides who owns the books: only companies bound to `Api` take imports through this API. `organizationNumber` must be 9 digits with a valid modulus-11 check digit. Answers **201** with `Location`. Errors: **400** `validation_failed`; **404** `not_found` for an `organizationId` outside the reach.',
    requestExample: { displayName: 'Fjellbekk Kraft AS', accountingSystem: 'Api', organizationNumber: '923609016', vatFrequency: 'bimonthly' },
    body: CreateCompanySchema,
    responses: { 201: { description: 'The created company; Location names it', schema: CompanySchema } },
    problems: { 404: 'not_found: organizationId does not exist or is outside your reach' },
  },
  getCompany: {
    description: 'One company within reach. Errors: **404** `not_found` (unknown, outside the reach or deleted).',
    params: CompanyParamsSchema,
    responses: { 200: company },
  },
  updateCompany: {
    description:
      'Changes the fields sent (patch semantics): `displayName`, `organizationNumber` (null clears it), `accountingSystem`, `vatFrequency`. An empty object changes nothing and answers the company. Errors: **400** `validation_failed`; **404** `not_found`.',
    requestExample: { displayName: 'Fjellbekk Kraft og Nett AS' },
    params: CompanyParamsSchema,
    body: UpdateCompanySchema,
    responses: { 200: company },
  },
  deleteCompany: {
    description:
      'Soft-deletes the company: it leaves lists and reads answer 404, until it is restored (to the status it had when the deletion committed: a disable or enable racing the delete is kept). A second delete answers the same deletion. Optional body `{"reason": "..."}`. When its status kept changing while the deletion was written: **409** `concurrent_change`, nothing deleted; send it again.',
    requestExample: { reason: 'Customer left the firm' },
    params: CompanyParamsSchema,
    body: DeleteCompanySchema,
    bodyOptional: true,
    responses: { 200: { description: 'The deletion (also for a company already deleted)', schema: CompanyDeletionSchema } },
    problems: { 409: 'conflict: reason concurrent_change (its status changed five times while the deletion was written; nothing deleted)' },
  },
  disableCompany: {
    description: 'Sets `status` to `disabled` (the company stays readable). Idempotent. Takes no body (`{}` is tolerated).',
    params: CompanyParamsSchema,
    responses: { 200: company },
  },
  enableCompany: {
    description: 'Sets `status` back to `active`. Idempotent. Takes no body (`{}` is tolerated).',
    params: CompanyParamsSchema,
    responses: { 200: company },
  },
  restoreCompany: {
    description:
      'Restores a soft-deleted company. A company that is not deleted is answered unchanged. Errors: **409** `conflict` with `reason` `deleted_by_organization_cascade` when the company was deleted with its organization, or its organization was deleted after it.',
    params: CompanyParamsSchema,
    responses: { 200: company },
    problems: { 409: 'The company was deleted together with its organization (reason deleted_by_organization_cascade)' },
  },
} satisfies Record<string, OperationContract>;
