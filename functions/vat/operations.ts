import { defineOperations } from '../../shared/composition/operations';
import { vatContracts as contracts } from '../../shared/vat/contracts';
import { listVatTerms } from '../../shared/vat/service';

/** GET .../vat/terms (vat:read): the terms follow the company's VAT frequency. */
export const vatOperations = defineOperations('vat', contracts, {
  listVatTerms: async ({ owner: company, query }) => ({
    status: 200,
    body: await listVatTerms(company, query.year),
  }),
});
