import { requireCompany } from '../../shared/companies/service';
import { httpHandler } from '../../shared/platform/http';
import { defineOperation } from '../../shared/platform/operation';
import { vatContracts as contracts } from '../../shared/vat/contracts';
import { listVatTerms } from '../../shared/vat/service';

/** GET .../vat/terms (scope vat:read): the terms follow the company's VAT frequency, so the reach check comes first. */
export const vatOperations = {
  listVatTerms: defineOperation(contracts.listVatTerms, async ({ principal, params, query }) => {
    const company = await requireCompany(principal, params.companyId);
    return { status: 200, body: await listVatTerms(company, query.year) };
  }),
};

export const handler = httpHandler('vat', vatOperations);
