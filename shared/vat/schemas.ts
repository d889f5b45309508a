import { lazySchema } from '../platform/lazy-schema';
import { vatFrequencies } from '../companies/schemas';
import { Decimal } from '../platform/money';
import { CountSchema, currentYearNote, DateSchema, limits, OnePageQuerySchema, pageOf, PeriodSchema, textOut, YearSchema, yearQueryParam } from '../platform/schemas';
import * as z from '../platform/zod';

/* Reads. Amounts are decimal.js values, written as JSON numbers with decimals by shared/platform/json.ts. */

const amountRead = /* @__PURE__ */ lazySchema(() => z.custom<Decimal>((value) => Decimal.isDecimal(value)).openapi({ type: 'number', format: 'decimal' }));
const amount = (description: string) => amountRead.openapi({ type: 'number', format: 'decimal', description });
const date = (description: string) => DateSchema.openapi({ description });

export const vatTermStatuses = ['open', 'no_activity', 'reconciled', 'discrepancy'] as const;
export type VatTermStatus = (typeof vatTermStatuses)[number];

export const vatPositions = ['payable', 'refundable', 'zero'] as const;
export type VatPosition = (typeof vatPositions)[number];

const signs =
  'Amounts are in NOK and signed as the VAT return reads them, not as booked: a normal sale and a normal purchase both give a positive basis; credit notes reduce it.';

export const VatTermTaxCodeSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    taxCode: textOut(50).openapi({ description: 'The taxCode of the GL lines, as imported', example: '3' }),
    standard: z.boolean().openapi({ description: 'Whether it is a SAF-T standard tax code (Skatteetaten). Other codes are listed but count in no total.' }),
    description: textOut(limits.name).nullable().openapi({ description: "Skatteetaten's English description; null for other codes", example: 'Output VAT' }),
    descriptionNorwegian: textOut(limits.name).nullable().openapi({ description: "Skatteetaten's Norwegian description; null for other codes", example: 'Utgående merverdiavgift' }),
    direction: z.enum(['output', 'input', 'none']).openapi({
      description: 'output: the tax amounts are output VAT (sales, and the VAT the buyer calculates under reverse charge); input: deductible input VAT; none: no VAT (also every non-standard code)',
    }),
    reverseCharge: z.boolean().openapi({ description: 'The buyer calculates the VAT (codes 81-89, 91, 92); with a deductible code the same VAT is also input VAT' }),
    rate: amountRead.nullable().openapi({ type: 'number', format: 'decimal', description: 'The rate as a fraction (0.25 = 25 %); null for codes without VAT treatment', example: 0.25, ...({ nullable: true } as object) }),
    lineCount: CountSchema.min(1).openapi({ description: 'Live GL lines with the code in the term' }),
    basis: amount('Sum of the line amounts: negated for sale codes (revenue is booked as a credit), as booked for purchase codes and non-standard codes; 0 for 14 and 15 (VAT paid on import: the line is the VAT itself, its basis is under 21/22)'),
    outputVat: amount('Output VAT of the code: the negated tax amounts of sale codes, the tax amounts of reverse-charge codes; 0 otherwise'),
    inputVat: amount('Input VAT of the code: the tax amounts of input codes and of deductible reverse-charge codes, the line amounts of 14 and 15; 0 otherwise'),
  })
  .openapi('VatTermTaxCode', { description: `One tax code's lines in a term. ${signs}` }));

const VatAccountMovementSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    accountCode: textOut(20).openapi({ example: '2700' }).openapi({ description: 'The VAT account' }),
    direction: z.enum(['output', 'input']).openapi({ description: 'output: 2700-2709 (utgående mva); input: 2710-2719 (inngående mva)' }),
    movement: amount('Sum of the GL lines on the account in the term, as booked (debit positive, credit negative)'),
  })
  .openapi('VatAccountMovement', { description: 'The movement of one VAT account in the term' }));

export const VatTermSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    year: YearSchema.openapi({ description: 'The filing year (the accounting year of the GL lines)', example: 2025 }),
    term: z.number().int().min(1).max(6).openapi({ description: 'Term number within the year: 1-6 for bimonthly filing, 1 for annual filing', example: 1 }),
    frequency: z.enum(vatFrequencies).openapi({ description: "The company's VAT filing frequency (Company.vatFrequency)" }),
    fromDate: date('First day of the term'),
    toDate: date('Last day of the term'),
    periods: z.array(PeriodSchema).max(12).openapi({ description: 'The accounting periods (months) the term covers', example: [1, 2] }),
    filingDueDate: date(
      'When the VAT return (and payment) is due: the 10th of the second month after a bimonthly term (term 3: 31 August), 10 March of the next year for annual filing; not moved for weekends or holidays',
    ),
    status: z.enum(vatTermStatuses).openapi({
      description: [
        'open: the term has not ended yet (today in Norway is on or before toDate);',
        'no_activity: no GL line with a tax code and no movement on a VAT account in the term;',
        'reconciled: the computed output and input VAT equal the movements on the VAT accounts exactly;',
        'discrepancy: they differ (see reconciliation).',
      ].join(' '),
    }),
    taxCodes: z.array(VatTermTaxCodeSchema).openapi({ description: 'Tax codes with live GL lines in the term; standard codes in Skatteetaten\'s order, then other codes' }),
    totals: z
      .object({
        outputVat: amount('Sum of outputVat over the standard tax codes'),
        inputVat: amount('Sum of inputVat over the standard tax codes'),
        netVat: amount('outputVat minus inputVat: payable when positive, refundable when negative'),
        position: z.enum(vatPositions).openapi({ description: 'payable (netVat > 0), refundable (netVat < 0) or zero' }),
      })
      .openapi('VatTermTotals', { description: 'VAT totals of the term in NOK' }),
    reconciliation: z
      .object({
        bookedOutputVat: amount('Output VAT booked: the negated movements of the output VAT accounts (2700-2709) in the term'),
        bookedInputVat: amount('Input VAT booked: the movements of the input VAT accounts (2710-2719) in the term'),
        outputVatDifference: amount('totals.outputVat minus bookedOutputVat'),
        inputVatDifference: amount('totals.inputVat minus bookedInputVat'),
        accounts: z.array(VatAccountMovementSchema).max(20).openapi({ description: 'VAT accounts with GL lines in the term, in account-code order. 2740 (settlement) is not a VAT account here.' }),
      })
      .openapi('VatTermReconciliation', {
        description: 'The VAT computed from the tax codes of the GL lines against the VAT booked on the VAT accounts (NS 4102 numbering), compared exactly',
      }),
  })
  .openapi('VatTerm', { description: `A VAT filing term with its totals and reconciliation status. ${signs}` }));

export const VatTermPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(VatTermSchema, 'VatTermPage', 6));

export type VatTerm = z.infer<typeof VatTermSchema>;
export type VatTermTaxCode = z.infer<typeof VatTermTaxCodeSchema>;
export type VatTermPage = z.infer<typeof VatTermPageSchema>;

/** The terms of a year are one page: page_size is accepted and ignored, a cursor refused (OnePageQuerySchema). */
export const VatTermQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  year: yearQueryParam(`Filing year; ${currentYearNote}`).optional(),
  ...OnePageQuerySchema.shape,
}));

export type VatTermQuery = z.infer<typeof VatTermQuerySchema>;
