import { stringify } from 'lossless-json';
import type { CompanyRecord } from '../companies/repository';
import { reachTargetOf } from '../companies/person-companies';
import { mayRun, type ReachingPrincipal } from '../identity/reach';
import type { Scope } from '../identity/scopes';
import { parseLosslessJson } from '../platform/lossless-json';
import { routes } from '../routes';

/**
 * What each part of a picture may show, and to whom. `context:read` (the tools' own scope) lets
 * a principal ask for a company's pictures; it shows no figure by itself. Each part repeats figures
 * of REST reads and is shown only where the runner would let the caller run every one of them on
 * the company (system clients only, reach with the read's action, the token's scope: `mayRun`);
 * a deny of any of them leaves the part out.
 */
export interface PicturePart {
  /** The picture's field. */
  field: string;
  /** The REST operations whose figures it repeats. */
  operations: readonly string[];
}

export const companyPictureParts: readonly PicturePart[] = [
  { field: 'name', operations: ['getCompany'] },
  { field: 'ledgerLastUpdatedAt', operations: ['listFetchRuns'] },
  { field: 'currentYear', operations: ['listAccounts'] },
  { field: 'trialBalance', operations: ['getTrialBalance'] },
  { field: 'bankAccounts', operations: ['listBankAccounts', 'listBankTransactions'] },
  { field: 'openVatTerm', operations: ['listVatTerms'] },
  // Open items are sub-ledger entries: ledger:read, as the sub-ledgers.
  { field: 'openItems', operations: ['listSubLedgers'] },
  { field: 'recentImports', operations: ['listImports'] },
];

/** An account picture is a read of a ledger account (as get_account): without it, not found. */
export const accountPictureBase: readonly string[] = ['getAccount'];

export const accountPictureParts: readonly PicturePart[] = [
  { field: 'reconciliation', operations: ['listBankAccounts', 'listBankTransactions'] },
  { field: 'vat', operations: ['listVatTerms'] },
];

const routeOf = (operationId: string) => {
  const route = routes.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`No route ${operationId}`);
  return route;
};

/** The actions a set of operations needs (their routes' scopes). */
export const actionsOf = (operations: readonly string[]): Scope[] => [...new Set(operations.map((id) => routeOf(id).scope).filter((scope): scope is Scope => !!scope))];

/** May the principal run every one of the operations on the company (the runner's own decision for each). */
export const mayReadAll = (principal: ReachingPrincipal, company: CompanyRecord, operations: readonly string[]): boolean =>
  operations.every((id) => mayRun(principal, routeOf(id), reachTargetOf(company)));

export interface Omitted {
  part: string;
  needs: Scope[];
}

/** The parts the principal may not read, with the actions each needs. */
export const omittedParts = (principal: ReachingPrincipal, company: CompanyRecord, parts: readonly PicturePart[]): Omitted[] =>
  parts.filter((part) => !mayReadAll(principal, company, part.operations)).map((part) => ({ part: part.field, needs: actionsOf(part.operations) }));

/**
 * The stored picture (JSON text, exact decimals) without the omitted parts, and the list of them:
 * parsed and written losslessly, so amounts keep their text ("1250.00").
 */
export const trimPicture = (picture: string, omitted: readonly Omitted[]): string => {
  const parsed = parseLosslessJson(picture) as Record<string, unknown>;
  const left = new Set(omitted.map((entry) => entry.part));
  const kept = Object.fromEntries(Object.entries(parsed).filter(([field]) => !left.has(field)));
  return stringify({ ...kept, omitted })!;
};
