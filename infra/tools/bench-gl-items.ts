import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { lineIdOf } from '../../shared/ledger/general-ledger/repository';
import * as keys from '../../shared/ledger/keys';

/** A GL line as the benches describe it: the amount as decimal text. */
export interface RawGlLine {
  id: string;
  accountCode: string;
  amount: string;
  period: number;
  transactionId: string;
  description: string;
  transactionDate: string;
}

/**
 * The item the import writes for a new GL line (its keys, both index keys, every attribute), for
 * the raw floors and the seeding of the benches: written straight to DynamoDB, it is what the
 * service reads and what the raw writers are measured against.
 */
export const rawGlLineItem = (companyId: string, year: number, line: RawGlLine, at: string, row: number, origin: { datasetId: string; importId: string }) => {
  const lineId = lineIdOf(companyId, year, line.id);
  return {
    ...keys.glLineKeys(companyId, year, lineId),
    entity: 'glLine',
    companyId,
    year,
    lineId,
    sourceLineId: line.id,
    accountCode: line.accountCode,
    amount: NumberValue.from(line.amount),
    period: line.period,
    transactionId: line.transactionId,
    description: line.description,
    transactionDate: line.transactionDate,
    ...keys.glLinePeriodIndexKeys(companyId, year, line.period, lineId),
    ...keys.glLineAccountIndexKeys(companyId, year, line.accountCode, line.period, lineId),
    version: 1,
    createdAt: at,
    updatedAt: at,
    datasetId: origin.datasetId,
    lastImportId: origin.importId,
    lastRow: row,
    lastOutcome: 'inserted',
  };
};
