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
  listCompanies: { query: CompanyListQuerySchema, responses: { 200: { description: 'A page of companies', schema: CompanyPageSchema } } },
  createCompany: {
    body: CreateCompanySchema,
    responses: { 201: { description: 'The created company; Location names it', schema: CompanySchema } },
    problems: { 404: 'not_found: organizationId does not exist or is outside your reach' },
  },
  getCompany: { params: CompanyParamsSchema, responses: { 200: company } },
  updateCompany: { params: CompanyParamsSchema, body: UpdateCompanySchema, responses: { 200: company } },
  deleteCompany: {
    params: CompanyParamsSchema,
    body: DeleteCompanySchema,
    bodyOptional: true,
    responses: { 200: { description: 'The deletion (also for a company already deleted)', schema: CompanyDeletionSchema } },
  },
  disableCompany: { params: CompanyParamsSchema, responses: { 200: company } },
  enableCompany: { params: CompanyParamsSchema, responses: { 200: company } },
  restoreCompany: {
    params: CompanyParamsSchema,
    responses: { 200: company },
    problems: { 409: 'The company was deleted together with its organization (reason deleted_by_organization_cascade)' },
  },
} satisfies Record<string, OperationContract>;
