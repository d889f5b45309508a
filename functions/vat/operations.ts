import { defineCompanyOperation } from '../../shared/companies/operation';
import { vatContracts as contracts } from '../../shared/vat/contracts';
import { listVatTerms } from '../../shared/vat/service';

/** GET .../vat/terms (vat:read): the terms follow the company's VAT frequency. */
export const vatOperations = {
  listVatTerms: defineCompanyOperation(contracts.listVatTerms, async ({ company, query }) => ({
    status: 200,
    body: await listVatTerms(company, query.year),
  })),
};
