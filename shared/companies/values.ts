/** Accounting systems a company's books can be bound to; `Api` means the books are pushed through imports. */
export const accountingSystems = ['Api', 'Tripletex', 'Fiken', 'PowerOffice', 'Visma', 'Xledger'] as const;
export type AccountingSystem = (typeof accountingSystems)[number];

export const companyStatuses = ['active', 'disabled'] as const;
export type CompanyStatus = (typeof companyStatuses)[number];

/** How often the company files its VAT return: six two-month terms (the default) or one annual term. */
export const vatFrequencies = ['bimonthly', 'annual'] as const;
export type VatFrequency = (typeof vatFrequencies)[number];
export const defaultVatFrequency: VatFrequency = 'bimonthly';
