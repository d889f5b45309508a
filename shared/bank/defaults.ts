/** The GL account a new bank account maps to unless told otherwise (NS 4102 1920 Bankinnskudd). */
export const defaultBankGlAccount = '1920';
