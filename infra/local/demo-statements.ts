import { XMLBuilder } from 'fast-xml-parser';
import { normalizeIban } from '../../shared/bank/account-number';
import { type Decimal, readAmount } from '../../shared/platform/money';

/** Demo bank statements: a plain description written out as a camt.053.001.02 document. */

export interface DemoEntry {
  /** AcctSvcrRef: the bank's unique id of the entry. */
  reference: string;
  bookingDate: string;
  valueDate?: string;
  /** Signed decimal text: negative is money out (DBIT). */
  amount: string;
  description: string;
  kid?: string;
  counterpartyName?: string;
  /** An IBAN (written as Id/IBAN) or a BBAN (written as Id/Othr/Id). */
  counterpartyAccount?: string;
}

export interface DemoStatement {
  messageId: string;
  statementId: string;
  iban: string;
  accountName: string;
  ownerName: string;
  currency: 'NOK';
  fromDate: string;
  toDate: string;
  openingBalance: string;
  entries: DemoEntry[];
}

const namespace = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.02';

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  format: true,
  indentBy: '  ',
  // Escapes &, <, >, ' and " in text and attribute values.
  processEntities: true,
});

/** A decimal in the one grammar of decimal text, with up to five decimals as ISO 20022 amounts have. */
const decimal = (text: string, what: string): Decimal => {
  const read = readAmount(text, 5);
  if ('problem' in read) throw new Error(`${what} is not a decimal: "${text}"`);
  return read.amount;
};

/** ISO 20022 writes amounts unsigned (sign in CdtDbtInd), here with at least two decimals. */
const amountAndIndicator = (value: Decimal, currency: string) => {
  const magnitude = value.abs();
  return {
    Amt: { '#text': magnitude.toFixed(Math.max(2, magnitude.decimalPlaces())), '@_Ccy': currency },
    CdtDbtInd: value.isNegative() && !value.isZero() ? 'DBIT' : 'CRDT',
  };
};

const balance = (code: 'OPBD' | 'CLBD', value: Decimal, date: string, currency: string) => ({
  Tp: { CdOrPrtry: { Cd: code } },
  ...amountAndIndicator(value, currency),
  Dt: { Dt: date },
});

const accountIdentification = (account: string) => {
  const iban = normalizeIban(account);
  return iban === null ? { Id: { Othr: { Id: account.trim() } } } : { Id: { IBAN: iban } };
};

const entryElement = (entry: DemoEntry, currency: string) => {
  const amount = decimal(entry.amount, `Entry ${entry.reference}: amount`);
  const credit = !(amount.isNegative() && !amount.isZero());
  const party = credit ? 'Dbtr' : 'Cdtr';
  const hasDetails = entry.kid !== undefined || entry.counterpartyName !== undefined || entry.counterpartyAccount !== undefined;
  const parties = {
    ...(entry.counterpartyName === undefined ? {} : { [party]: { Nm: entry.counterpartyName } }),
    ...(entry.counterpartyAccount === undefined ? {} : { [`${party}Acct`]: accountIdentification(entry.counterpartyAccount) }),
  };
  return {
    ...amountAndIndicator(amount, currency),
    Sts: 'BOOK',
    BookgDt: { Dt: entry.bookingDate },
    ...(entry.valueDate === undefined ? {} : { ValDt: { Dt: entry.valueDate } }),
    AcctSvcrRef: entry.reference,
    BkTxCd: { Domn: { Cd: 'PMNT', Fmly: { Cd: credit ? 'RCDT' : 'ICDT', SubFmlyCd: 'DMCT' } } },
    ...(hasDetails
      ? {
          NtryDtls: {
            TxDtls: {
              Refs: { AcctSvcrRef: entry.reference },
              ...(Object.keys(parties).length > 0 ? { RltdPties: parties } : {}),
              ...(entry.kid === undefined
                ? {}
                : { RmtInf: { Strd: { CdtrRefInf: { Tp: { CdOrPrtry: { Cd: 'SCOR' } }, Ref: entry.kid } } } }),
            },
          },
        }
      : {}),
    ...(entry.description === '' ? {} : { AddtlNtryInf: entry.description }),
  };
};

/** A camt.053.001.02 document of one statement; the closing balance is opening + the sum of the entries. */
export const buildCamt053 = (statement: DemoStatement): string => {
  const iban = normalizeIban(statement.iban);
  if (iban === null) throw new Error(`Not a valid IBAN: "${statement.iban}"`);
  const opening = decimal(statement.openingBalance, 'Opening balance');
  const closing = statement.entries.reduce((sum, entry) => sum.plus(decimal(entry.amount, `Entry ${entry.reference}: amount`)), opening);
  const createdAt = `${statement.toDate}T23:59:59`;
  const document = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    Document: {
      '@_xmlns': namespace,
      BkToCstmrStmt: {
        GrpHdr: { MsgId: statement.messageId, CreDtTm: createdAt },
        Stmt: {
          Id: statement.statementId,
          CreDtTm: createdAt,
          FrToDt: { FrDtTm: `${statement.fromDate}T00:00:00`, ToDtTm: `${statement.toDate}T23:59:59` },
          Acct: {
            Id: { IBAN: iban },
            Ccy: statement.currency,
            Nm: statement.accountName,
            Ownr: { Nm: statement.ownerName },
          },
          Bal: [
            balance('OPBD', opening, statement.fromDate, statement.currency),
            balance('CLBD', closing, statement.toDate, statement.currency),
          ],
          Ntry: statement.entries.map((entry) => entryElement(entry, statement.currency)),
        },
      },
    },
  };
  return builder.build(document);
};
