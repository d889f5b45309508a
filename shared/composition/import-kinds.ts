import { chartImportKinds } from '../ledger/chart/import-kinds';
import { generalLedgerImportKinds } from '../ledger/general-ledger/import-kinds';
import { openItemsImportKind } from '../ledger/open-items/import-kinds';
import type { ImportKind, ImportKindName } from '../imports/kind';
import { bankRepository } from '../bank/repository';
import { documentsHoldingLines } from '../documents/service';
import { provideLedgerHolds } from '../ledger/holds';

provideLedgerHolds({
  bankAccountsMappedTo: async (companyId, accountCode) => (await bankRepository.accountsMappedTo(companyId, accountCode)).map((account) => String(account.id)),
  documentsHoldingLines,
});

/** Every kind of import the service accepts. */
export const importKinds: readonly ImportKind[] = [...chartImportKinds, ...generalLedgerImportKinds, openItemsImportKind];

export const importKind = (name: ImportKindName): ImportKind => {
  const kind = importKinds.find((candidate) => candidate.name === name);
  if (!kind) throw new Error(`No import kind ${name}`);
  return kind;
};
