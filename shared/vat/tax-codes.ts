import { Decimal } from '../platform/money';

/**
 * The Norwegian SAF-T standard VAT codes (Skatteetaten, "Standard Tax Codes", the StandardTaxCode
 * list of SAF-T Financial): https://github.com/Skatteetaten/saf-t, file
 * "Standard Tax Codes/CSV/Standard_Tax_Codes.csv" (codes, NOB/ENG descriptions and rate names as
 * published there). The rate names map to the rates in force: regular 25 %, reduced middle 15 %,
 * reduced low 12 %, raw fish 11.11 %, zero 0 %. Direction, side and the reverse-charge flags are
 * this service's reading of each code, used to compute the VAT terms (see shared/vat/README.md).
 */

export type VatDirection = 'output' | 'input' | 'none';
export type RateCategory = 'regular' | 'reduced_middle' | 'reduced_low' | 'raw_fish' | 'zero';

export interface StandardTaxCode {
  code: string;
  /** Skatteetaten's Norwegian (bokmål) description. */
  descriptionNb: string;
  /** Skatteetaten's English description. */
  descriptionEn: string;
  rateCategory: RateCategory | null;
  /** As a fraction (0.25); null for codes without VAT treatment. */
  rate: Decimal | null;
  /**
   * Which VAT the code's tax amounts are: output (utgående), input (inngående, deductible) or
   * none. Reverse-charge codes are output VAT the buyer calculates; see `deductible`.
   */
  direction: VatDirection;
  /** Whether the line is a sale (revenue, normally a credit) or a purchase (cost, normally a debit). */
  side: 'sale' | 'purchase';
  /** The line amount is the basis the code's VAT is calculated on (also at zero rate). */
  vatBasis: boolean;
  /** The buyer calculates the VAT (imports of goods and services, emission allowances and gold). */
  reverseCharge: boolean;
  /** Reverse charge with the right to deduct: the calculated VAT is also input VAT. */
  deductible: boolean;
}

const rates: Record<RateCategory, Decimal> = {
  regular: new Decimal('0.25'),
  reduced_middle: new Decimal('0.15'),
  reduced_low: new Decimal('0.12'),
  raw_fish: new Decimal('0.1111'),
  zero: new Decimal('0'),
};

type Definition = Omit<StandardTaxCode, 'rate' | 'reverseCharge' | 'deductible'> & Partial<Pick<StandardTaxCode, 'reverseCharge' | 'deductible'>>;

const define = (definition: Definition): StandardTaxCode => ({
  ...definition,
  rate: definition.rateCategory === null ? null : rates[definition.rateCategory],
  reverseCharge: definition.reverseCharge ?? false,
  deductible: definition.deductible ?? false,
});

const none = { rateCategory: null, direction: 'none', vatBasis: false } as const;
const inputVat = (rateCategory: RateCategory) => ({ rateCategory, direction: 'input', side: 'purchase', vatBasis: true }) as const;
const outputVat = (rateCategory: RateCategory) => ({ rateCategory, direction: 'output', side: 'sale', vatBasis: true }) as const;
const reverseCharge = (rateCategory: RateCategory, deductible: boolean) =>
  ({ rateCategory, direction: 'output', side: 'purchase', vatBasis: true, reverseCharge: true, deductible }) as const;

const domesticInputNb = 'Fradragsberettiget innenlands inngående merverdiavgift';
const importInputNb = 'Fradragsberettiget innførselsmerverdiavgift';
const importBasisNb = 'Kostnad ved innførsel av varer';
const outputNb = 'Utgående merverdiavgift';
const goodsDeductibleNb = 'Grunnlag innførsel av varer med fradragsrett for innførselsmerverdiavgift';
const goodsNotDeductibleNb = 'Grunnlag innførsel av varer uten fradragsrett for innførselsmerverdiavgift';
const servicesDeductibleNb = 'Tjenester kjøpt fra utlandet med fradragsrett for merverdiavgift';
const servicesNotDeductibleNb = 'Tjenester kjøpt fra utlandet uten fradragsrett for merverdiavgift';

/** In Skatteetaten's order. */
export const standardTaxCodes: readonly StandardTaxCode[] = [
  define({ code: '0', descriptionNb: 'Ingen merverdiavgiftsbehandling (anskaffelser)', descriptionEn: 'No VAT treatment', side: 'purchase', ...none }),
  define({ code: '1', descriptionNb: domesticInputNb, descriptionEn: 'Input VAT deductible (domestic)', ...inputVat('regular') }),
  define({ code: '11', descriptionNb: domesticInputNb, descriptionEn: 'Input VAT deductible (domestic)', ...inputVat('reduced_middle') }),
  define({ code: '12', descriptionNb: domesticInputNb, descriptionEn: 'Input VAT deductible (domestic)', ...inputVat('raw_fish') }),
  define({ code: '13', descriptionNb: domesticInputNb, descriptionEn: 'Input VAT deductible (domestic)', ...inputVat('reduced_low') }),
  // VAT paid at import (to customs): the line is the deductible VAT itself (taxAmount = amount); its basis is booked under 21/22.
  define({ code: '14', descriptionNb: importInputNb, descriptionEn: 'Input VAT deductible (paid on import)', ...inputVat('regular'), vatBasis: false }),
  define({ code: '15', descriptionNb: importInputNb, descriptionEn: 'Input VAT deductible (paid on import)', ...inputVat('reduced_middle'), vatBasis: false }),
  define({ code: '20', descriptionNb: 'Kostnad ved innførsel av varer, ingen merverdiavgiftsbehandling', descriptionEn: 'No VAT treatment (import of goods)', side: 'purchase', ...none }),
  define({ code: '21', descriptionNb: importBasisNb, descriptionEn: 'Basis on import of goods', rateCategory: 'regular', direction: 'none', side: 'purchase', vatBasis: true }),
  define({ code: '22', descriptionNb: importBasisNb, descriptionEn: 'Basis on import of goods', rateCategory: 'reduced_middle', direction: 'none', side: 'purchase', vatBasis: true }),
  define({ code: '3', descriptionNb: outputNb, descriptionEn: 'Output VAT', ...outputVat('regular') }),
  define({ code: '31', descriptionNb: outputNb, descriptionEn: 'Output VAT', ...outputVat('reduced_middle') }),
  define({ code: '32', descriptionNb: outputNb, descriptionEn: 'Output VAT', ...outputVat('raw_fish') }),
  define({ code: '33', descriptionNb: outputNb, descriptionEn: 'Output VAT', ...outputVat('reduced_low') }),
  // Zero-rated supplies (fritatt): within the VAT Act, reported, no VAT.
  define({ code: '5', descriptionNb: 'Innenlands omsetning og uttak fritatt for merverdiavgift', descriptionEn: 'No output VAT (domestic zero-rated sales and withdrawals)', ...outputVat('zero') }),
  define({ code: '51', descriptionNb: 'Innenlandsk omsetning med omvendt avgiftplikt', descriptionEn: 'Domestic sales subject to reverse charge', ...outputVat('zero') }),
  define({ code: '52', descriptionNb: 'Utførsel av varer og tjenester', descriptionEn: 'Export of goods and services', ...outputVat('zero') }),
  // Exempt (unntatt) or outside the VAT Act: no VAT and no basis.
  define({ code: '6', descriptionNb: 'Omsetning og uttak utenfor merverdiavgiftsloven', descriptionEn: 'Turnover and withdrawals outside the scope of the VAT legislation', side: 'sale', ...none }),
  define({ code: '7', descriptionNb: 'Ingen merverdiavgiftsbehandling (inntekter)', descriptionEn: 'No VAT treatment - no turnover according to the VAT legislation', side: 'sale', ...none }),
  define({ code: '81', descriptionNb: goodsDeductibleNb, descriptionEn: 'Importation of goods, VAT deductible', ...reverseCharge('regular', true) }),
  define({ code: '82', descriptionNb: goodsNotDeductibleNb, descriptionEn: 'Importation of goods, without deduction of VAT', ...reverseCharge('regular', false) }),
  define({ code: '83', descriptionNb: goodsDeductibleNb, descriptionEn: 'Importation of goods, VAT deductible', ...reverseCharge('reduced_middle', true) }),
  define({ code: '84', descriptionNb: goodsNotDeductibleNb, descriptionEn: 'Importation of goods, without deduction of VAT', ...reverseCharge('reduced_middle', false) }),
  define({ code: '85', descriptionNb: 'Grunnlag innførsel av varer som det ikke skal beregnes merverdiavgift av', descriptionEn: 'Importation of goods, not applicable for VAT', ...reverseCharge('zero', false) }),
  define({ code: '86', descriptionNb: servicesDeductibleNb, descriptionEn: 'Services purchased from abroad, VAT deductible', ...reverseCharge('regular', true) }),
  define({ code: '87', descriptionNb: servicesNotDeductibleNb, descriptionEn: 'Services purchased from abroad, without deduction of VAT', ...reverseCharge('regular', false) }),
  define({ code: '88', descriptionNb: servicesDeductibleNb, descriptionEn: 'Services purchased from abroad, VAT deductible', ...reverseCharge('reduced_low', true) }),
  define({ code: '89', descriptionNb: servicesNotDeductibleNb, descriptionEn: 'Services purchased from abroad, without deduction of VAT', ...reverseCharge('reduced_low', false) }),
  define({ code: '91', descriptionNb: 'Kjøp av klimakvoter eller gull med fradragsrett for merverdiavgift', descriptionEn: 'Purchase of emissions trading or gold, VAT deductible', ...reverseCharge('regular', true) }),
  define({ code: '92', descriptionNb: 'Kjøp av klimakvoter eller gull uten fradragsrett for merverdiavgift', descriptionEn: 'Purchase of emissions trading or gold, without deduction of VAT', ...reverseCharge('regular', false) }),
];

const byCode = new Map(standardTaxCodes.map((taxCode, index) => [taxCode.code, { taxCode, index }]));

/** The standard code a line's taxCode names; codes are compared as imported ("03" is not "3"). */
export const standardTaxCode = (code: string): StandardTaxCode | undefined => byCode.get(code)?.taxCode;

/** Sort order: standard codes in Skatteetaten's order, then other codes by text. */
export const compareTaxCodes = (a: string, b: string): number => {
  const left = byCode.get(a)?.index ?? Number.MAX_SAFE_INTEGER;
  const right = byCode.get(b)?.index ?? Number.MAX_SAFE_INTEGER;
  return left - right || (a < b ? -1 : a > b ? 1 : 0);
};
