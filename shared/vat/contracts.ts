import { CompanyParamsSchema } from '../companies/schemas';
import type { OperationContract } from '../api/operation';
import { VatTermPageSchema, VatTermQuerySchema } from './schemas';

/** Request and response shapes of the VAT reads, keyed by operationId. */
export const vatContracts = {
  listVatTerms: {
    description: 'The VAT filing terms of a year (bimonthly or annual, as the company files), with totals by standard tax code in NOK and a reconciliation status against the VAT accounts.',
    params: CompanyParamsSchema,
    query: VatTermQuerySchema,
    responses: {
      200: {
        description:
          "The VAT terms of the year in one page (six for bimonthly filing, one for annual filing, per the company's vatFrequency), with totals per tax code and the reconciliation against the VAT accounts",
        schema: VatTermPageSchema,
      },
    },
  },
} satisfies Record<string, OperationContract>;
