/** The GL account a new bank account maps to unless told otherwise (NS 4102 1920 Bankinnskudd). */
export const defaultBankGlAccount = '1920';

/**
 * The bounds of one camt.053 file (shared/bank/camt053.ts). At most 16 MiB: it is read and parsed
 * whole, and the parsed tree takes about 25 times the file (33 MiB measured at 865 MiB resident),
 * so this keeps a run under about 500 MB.
 */
export const maxCamt053Bytes = 16 * 1024 * 1024;
/** Entries (Ntry) of one file, across its statements. */
export const maxCamt053Entries = 50_000;
