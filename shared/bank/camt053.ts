import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Decimal } from '../platform/money';
import { textRuleProblem } from '../platform/schemas';
import { clip } from '../platform/text';
import { maxCamt053Bytes, maxCamt053Entries } from './defaults';
import { maxStatementText } from './schemas';

export { maxCamt053Bytes, maxCamt053Entries };

/**
 * ISO 20022 camt.053 (bank-to-customer statement) parser: pure, no I/O. Accepts any
 * camt.053.001.xx namespace and matches elements on their local names, so .02 and .08 (and a
 * prefixed Document) read the same way. Amounts stay decimal text until they become Decimal.
 * Every text read is held to its ISO 20022 type (length, pattern) and the API's text rule, so
 * nothing unbounded reaches a key or a stored record.
 */

/** Anything malformed; the message says what is wrong and where (e.g. 'Stmt 2 Ntry 5: ...'). */
export class Camt053Error extends Error {
  override name = 'Camt053Error';
}

export interface StatementAccount {
  iban: string | null;
  bban: string | null;
  currency: string | null;
  name: string | null;
  ownerName: string | null;
  bic: string | null;
}

export interface StatementBalance {
  amount: Decimal;
  /** YYYY-MM-DD */
  date: string;
}

export interface StatementEntry {
  /** 1-based position of the Ntry within its Stmt. */
  index: number;
  /** Ntry/NtryRef */
  entryReference: string | null;
  /** Ntry/AcctSvcrRef: the bank's unique id of the entry when present. */
  accountServicerReference: string | null;
  /** Signed: DBIT negative, CRDT positive. */
  amount: Decimal;
  /** Amt/@Ccy */
  currency: string;
  status: 'BOOK' | 'PDNG' | 'INFO' | 'FUTR';
  /** BookgDt (Dt, or the date part of DtTm); required for BOOK. Otherwise ValDt, else the statement's to/from date. */
  bookingDate: string;
  valueDate: string | null;
  /** AddtlNtryInf, else the Ustrd texts of the first TxDtls joined with ' '. */
  description: string | null;
  /** The structured creditor reference (KID), else EndToEndId unless it is 'NOTPROVIDED'. */
  reference: string | null;
  /** The debtor of a credit, the creditor of a debit (first TxDtls). */
  counterpartyName: string | null;
  counterpartyAccount: string | null;
  /** 'Domain/Family/SubFamily' (e.g. 'PMNT/RCDT/DMCT'), else the proprietary code. */
  bankTransactionCode: string | null;
}

export interface BankStatement {
  /** GrpHdr/MsgId */
  messageId: string;
  /** GrpHdr/CreDtTm as given (a checked ISO date-time) */
  createdAt: string | null;
  /** Stmt/Id */
  statementId: string;
  /** Stmt/ElctrncSeqNb */
  sequenceNumber: string | null;
  fromDate: string | null;
  toDate: string | null;
  account: StatementAccount;
  /** OPBD, or PRCD when there is no OPBD. */
  openingBalance: StatementBalance | null;
  /** CLBD */
  closingBalance: StatementBalance | null;
  entries: StatementEntry[];
}

const camt053Namespace = /^urn:iso:std:iso:20022:tech:xsd:camt\.053\.001\.\d{2}$/;
const iso20022Message = /^urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3}\.\d{3}\.\d{2})$/;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  // Every element is an array, so an element that occurs once reads like one that repeats.
  isArray: (_tagName, _jPath, _isLeafNode, isAttribute) => !isAttribute,
  // Text stays text: amounts, account numbers and KIDs keep every digit and leading zero.
  parseTagValue: false,
  parseAttributeValue: false,
  numberParseOptions: { hex: false, leadingZeros: false, eNotation: false },
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  processEntities: true,
  // Numeric character references too (&#248; is ø); what they decode to passes the text rule below.
  htmlEntities: true,
});

type XmlElement = Record<string, unknown>;

const isElement = (value: unknown): value is XmlElement => typeof value === 'object' && value !== null && !Array.isArray(value);

const localName = (key: string) => key.slice(key.lastIndexOf(':') + 1);

const isChildKey = (key: string) => !key.startsWith('@_') && key !== '#text';

/** The child elements of a node with this local name, in document order. */
const children = (node: unknown, name: string): unknown[] => {
  if (!isElement(node)) return [];
  const found: unknown[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (isChildKey(key) && localName(key) === name) found.push(...(Array.isArray(value) ? value : [value]));
  }
  return found;
};

/** The first element down a path of local names, or undefined. */
const child = (node: unknown, ...path: string[]): unknown => {
  let current = node;
  for (const name of path) {
    current = children(current, name)[0];
    if (current === undefined) return undefined;
  }
  return current;
};

/** The trimmed text of an element (or of the element down a path); null when absent or empty. Unchecked: see `field`. */
const text = (node: unknown, ...path: string[]): string | null => {
  const element = path.length === 0 ? node : child(node, ...path);
  const value = isElement(element) ? element['#text'] : element;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
};

/** A value in an error message: quoted, at most 40 characters, control and format characters escaped. */
const shown = (value: string): string =>
  `"${clip(value, 40).replace(/[\p{Cc}\p{Cf}\p{Cs}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)}"`;

/** An ISO 20022 simple type: MaxNNText (length in characters), optionally a pattern. */
interface TextType {
  max: number;
  /** Line breaks and tabs allowed (free text). */
  multiline?: boolean;
  pattern?: { test: RegExp; is: string };
}
const max4: TextType = { max: 4 };
const max34: TextType = { max: 34 };
const max35: TextType = { max: 35 };
const max70: TextType = { max: 70 };
const max140: TextType = { max: 140 };
const max140Free: TextType = { max: 140, multiline: true };
const max500Free: TextType = { max: 500, multiline: true };
const currencyCode: TextType = { max: 3, pattern: { test: /^[A-Z]{3}$/, is: 'a currency code (three capital letters)' } };
/** camt.053.001.02 BICIdentifier and .08 BICFIDec2014Identifier. */
const bic: TextType = { max: 11, pattern: { test: /^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/, is: 'a BIC' } };
const bicfi: TextType = { max: 11, pattern: { test: /^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/, is: 'a BIC' } };
/** Number (fractionDigits 0, totalDigits 18). */
const sequenceNumber: TextType = { max: 18, pattern: { test: /^\d{1,18}$/, is: 'a whole number of at most 18 digits' } };

const checked = (value: string, type: TextType, where: string, label: string): string => {
  const length = [...value].length;
  if (length > type.max) throw new Camt053Error(`${where}: ${label} has ${length} characters; ISO 20022 allows at most ${type.max}`);
  const problem = textRuleProblem(value, type.multiline);
  if (problem) throw new Camt053Error(`${where}: ${label} ${problem}`);
  if (type.pattern && !type.pattern.test.test(value)) throw new Camt053Error(`${where}: ${label} is not ${type.pattern.is}: ${shown(value)}`);
  return value;
};

/** The text down a path (as `text`), checked against its ISO 20022 type and the text rule; the message names the path. */
const field = (type: TextType, where: string, node: unknown, ...path: string[]): string | null => {
  const value = text(node, ...path);
  return value === null ? null : checked(value, type, where, path.join('/'));
};

const attribute = (node: unknown, name: string): string | null => {
  if (!isElement(node)) return null;
  const value = node[`@_${name}`];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
};

const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const isoDateTime = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;

const isCalendarDate = (value: string): boolean => {
  const match = isoDate.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

const dateOf = (value: string, where: string, label: string): string => {
  if (!isCalendarDate(value)) throw new Camt053Error(`${where}: ${label} is not a valid ISO date: ${shown(value)}`);
  return value;
};

const dateOfDateTime = (value: string, where: string, label: string): string => {
  const match = isoDateTime.exec(value);
  const valid = match !== null && isCalendarDate(match[1]!) && Number(match[2]) <= 23 && Number(match[3]) <= 59 && Number(match[4]) <= 59;
  if (!valid) throw new Camt053Error(`${where}: ${label} is not a valid ISO date-time: ${shown(value)}`);
  return match[1]!;
};

/** A DateAndDateTimeChoice (Dt or DtTm) as YYYY-MM-DD; null when the element is absent. */
const dateChoice = (node: unknown, where: string, label: string): string | null => {
  if (node === undefined) return null;
  const date = text(node, 'Dt');
  if (date !== null) return dateOf(date, where, `${label}/Dt`);
  const dateTime = text(node, 'DtTm');
  if (dateTime !== null) return dateOfDateTime(dateTime, where, `${label}/DtTm`);
  throw new Camt053Error(`${where}: ${label} has neither Dt nor DtTm`);
};

const optionalDateTime = (value: string | null, where: string, label: string): string | null =>
  value === null ? null : dateOfDateTime(value, where, label);

/** ISO 20022 amounts: unsigned, at most 5 decimals and 18 digits (the XSD's ActiveOrHistoricCurrencyAndAmount). */
const parseAmountText = (value: string | null, where: string, label: string): Decimal => {
  if (value === null) throw new Camt053Error(`${where}: ${label} is empty`);
  if (value.startsWith('-')) throw new Camt053Error(`${where}: ${label} is negative (${shown(value)}); the sign belongs in CdtDbtInd`);
  const match = /^\d+(?:\.(\d+))?$/.exec(value);
  if (!match) throw new Camt053Error(`${where}: ${label} is not a decimal: ${shown(value)}`);
  if ((match[1]?.length ?? 0) > 5) throw new Camt053Error(`${where}: ${label} has more than 5 decimals: ${shown(value)}`);
  if (value.replace('.', '').replace(/^0+(?=\d)/, '').length > 18) throw new Camt053Error(`${where}: ${label} has more than 18 digits: ${shown(value)}`);
  return new Decimal(value);
};

/** The amount of an element with Amt and CdtDbtInd, signed by the indicator. */
const signedAmount = (node: unknown, where: string): { amount: Decimal; currency: string; credit: boolean } => {
  const amountElement = child(node, 'Amt');
  if (amountElement === undefined) throw new Camt053Error(`${where}: Amt is missing`);
  const amount = parseAmountText(text(amountElement), where, 'Amt');
  const currency = attribute(amountElement, 'Ccy');
  if (currency === null) throw new Camt053Error(`${where}: Amt has no Ccy attribute`);
  if (!/^[A-Z]{3}$/.test(currency)) throw new Camt053Error(`${where}: Amt Ccy is not a currency code: ${shown(currency)}`);
  const indicator = text(node, 'CdtDbtInd');
  if (indicator === null) throw new Camt053Error(`${where}: CdtDbtInd is missing`);
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw new Camt053Error(`${where}: CdtDbtInd must be CRDT or DBIT, not ${shown(indicator)}`);
  const credit = indicator === 'CRDT';
  return { amount: credit || amount.isZero() ? amount : amount.neg(), currency, credit };
};

const parseBalance = (balance: unknown, where: string): StatementBalance => {
  const { amount } = signedAmount(balance, where);
  const date = dateChoice(child(balance, 'Dt'), where, 'Dt');
  if (date === null) throw new Camt053Error(`${where}: Dt is missing`);
  return { amount, date };
};

const statuses = ['BOOK', 'PDNG', 'INFO', 'FUTR'] as const;
type EntryStatus = (typeof statuses)[number];

const parseStatus = (entry: unknown, where: string): EntryStatus => {
  const element = child(entry, 'Sts');
  if (element === undefined) throw new Camt053Error(`${where}: Sts is missing`);
  // .02: <Sts>BOOK</Sts>; .08: <Sts><Cd>BOOK</Cd></Sts>
  const code = text(element, 'Cd') ?? text(element);
  if (code === null) throw new Camt053Error(`${where}: Sts has no status code`);
  if (!(statuses as readonly string[]).includes(code)) throw new Camt053Error(`${where}: Sts must be BOOK, PDNG, INFO or FUTR, not ${shown(code)}`);
  return code as EntryStatus;
};

const bankTransactionCode = (entry: unknown, where: string): string | null => {
  const code = child(entry, 'BkTxCd');
  const domain = child(code, 'Domn');
  if (domain !== undefined) {
    const at = `${where} BkTxCd/Domn`;
    const parts = [field(max4, at, domain, 'Cd'), field(max4, at, domain, 'Fmly', 'Cd'), field(max4, at, domain, 'Fmly', 'SubFmlyCd')].filter((part) => part !== null);
    if (parts.length > 0) return parts.join('/');
  }
  return field(max35, `${where} BkTxCd`, code, 'Prtry', 'Cd');
};

const creditorReference = (transaction: unknown, where: string): string | null => {
  for (const structured of children(child(transaction, 'RmtInf'), 'Strd')) {
    const reference = field(max35, `${where} RmtInf/Strd`, structured, 'CdtrRefInf', 'Ref');
    if (reference !== null) return reference;
  }
  const endToEndId = field(max35, where, transaction, 'Refs', 'EndToEndId');
  return endToEndId === 'NOTPROVIDED' ? null : endToEndId;
};

/** The Ustrd lines joined with ' ' (each Max140Text), cut to maxStatementText. */
const unstructuredText = (transaction: unknown, where: string): string | null => {
  const lines = children(child(transaction, 'RmtInf'), 'Ustrd')
    .map((line) => text(line))
    .filter((line) => line !== null)
    .map((line) => checked(line, max140Free, where, 'RmtInf/Ustrd'));
  return lines.length > 0 ? clip(lines.join(' '), maxStatementText) : null;
};

const parseEntry = (entry: unknown, index: number, where: string, fallbackDate: () => string | null): StatementEntry => {
  const { amount, currency, credit } = signedAmount(entry, where);
  const status = parseStatus(entry, where);
  const bookedOn = dateChoice(child(entry, 'BookgDt'), where, 'BookgDt');
  const valueDate = dateChoice(child(entry, 'ValDt'), where, 'ValDt');
  if (bookedOn === null && status === 'BOOK') throw new Camt053Error(`${where}: booked entry (Sts BOOK) has no BookgDt`);
  const bookingDate = bookedOn ?? valueDate ?? fallbackDate();
  if (bookingDate === null) throw new Camt053Error(`${where}: entry has neither BookgDt nor ValDt`);

  const transaction = child(entry, 'NtryDtls', 'TxDtls');
  const inTransaction = `${where} NtryDtls/TxDtls`;
  const parties = child(transaction, 'RltdPties');
  const inParties = `${inTransaction}/RltdPties`;
  const party = credit ? 'Dbtr' : 'Cdtr';
  return {
    index,
    entryReference: field(max35, where, entry, 'NtryRef'),
    accountServicerReference: field(max35, where, entry, 'AcctSvcrRef'),
    amount,
    currency,
    status,
    bookingDate,
    valueDate,
    description: field(max500Free, where, entry, 'AddtlNtryInf') ?? unstructuredText(transaction, inTransaction),
    reference: creditorReference(transaction, inTransaction),
    counterpartyName: field(max140, inParties, parties, party, 'Nm') ?? field(max140, inParties, parties, party, 'Pty', 'Nm'),
    counterpartyAccount: field(max34, inParties, parties, `${party}Acct`, 'Id', 'IBAN') ?? field(max34, inParties, parties, `${party}Acct`, 'Id', 'Othr', 'Id'),
    bankTransactionCode: bankTransactionCode(entry, where),
  };
};

const parseStatement = (statement: unknown, position: number, messageId: string, createdAt: string | null): BankStatement => {
  const where = `Stmt ${position}`;
  const statementId = field(max35, where, statement, 'Id');
  if (statementId === null) throw new Camt053Error(`${where}: Id is missing`);

  const account = child(statement, 'Acct');
  if (account === undefined) throw new Camt053Error(`${where}: Acct is missing`);
  const inAccount = `${where} Acct`;
  // IBAN2007Identifier is at most 34 characters; its check digits are checked on ingestion.
  const iban = field(max34, inAccount, account, 'Id', 'IBAN');
  const bban = field(max34, inAccount, account, 'Id', 'Othr', 'Id');
  if (iban === null && bban === null) throw new Camt053Error(`${where}: Acct has no identification (neither Id/IBAN nor Id/Othr/Id)`);

  const fromDate = optionalDateTime(text(statement, 'FrToDt', 'FrDtTm'), where, 'FrToDt/FrDtTm');
  const toDate = optionalDateTime(text(statement, 'FrToDt', 'ToDtTm'), where, 'FrToDt/ToDtTm');

  const balances = children(statement, 'Bal').map((balance, i) => ({ balance, position: i + 1, code: text(balance, 'Tp', 'CdOrPrtry', 'Cd') }));
  const balanceOf = (...codes: string[]): StatementBalance | null => {
    for (const code of codes) {
      const found = balances.find((balance) => balance.code === code);
      if (found) return parseBalance(found.balance, `${where} Bal ${found.position} (${code})`);
    }
    return null;
  };

  // A pending entry without BookgDt or ValDt is dated by the statement period (or its creation).
  const fallbackDate = () => toDate ?? fromDate ?? (createdAt === null ? null : dateOfDateTime(createdAt, 'GrpHdr', 'CreDtTm'));
  return {
    messageId,
    createdAt,
    statementId,
    sequenceNumber: field(sequenceNumber, where, statement, 'ElctrncSeqNb'),
    fromDate,
    toDate,
    account: {
      iban,
      bban,
      currency: field(currencyCode, inAccount, account, 'Ccy'),
      name: field(max70, inAccount, account, 'Nm'),
      ownerName: field(max140, inAccount, account, 'Ownr', 'Nm'),
      bic: field(bic, inAccount, account, 'Svcr', 'FinInstnId', 'BIC') ?? field(bicfi, inAccount, account, 'Svcr', 'FinInstnId', 'BICFI'),
    },
    openingBalance: balanceOf('OPBD', 'PRCD'),
    closingBalance: balanceOf('CLBD'),
    entries: children(statement, 'Ntry').map((entry, i) => parseEntry(entry, i + 1, `${where} Ntry ${i + 1}`, fallbackDate)),
  };
};

const decode = (xml: string | Buffer): string => {
  const bytes = typeof xml === 'string' ? Buffer.byteLength(xml) : xml.length;
  if (bytes > maxCamt053Bytes) throw new Camt053Error(`The file is ${bytes} bytes; at most ${maxCamt053Bytes} (16 MiB) are taken`);
  if (typeof xml === 'string') return xml.replace(/^\uFEFF/, '');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(xml);
  } catch {
    throw new Camt053Error('The file is not valid UTF-8 text');
  }
};

/** The root element: exactly one Document/BkToCstmrStmt in a camt.053 namespace. */
const statementMessage = (document: XmlElement): XmlElement => {
  const roots = Object.keys(document)
    .filter(isChildKey)
    .flatMap((key) => [document[key]].flat().map((element) => ({ key, element })));
  if (roots.length === 0) throw new Camt053Error('The XML has no root element');
  if (roots.length !== 1) {
    throw new Camt053Error(`The XML has ${roots.length} root elements (${roots.map(({ key }) => key).join(', ')}); expected one Document`);
  }
  const { key: rootKey, element: root } = roots[0]!;
  const prefix = rootKey.includes(':') ? rootKey.slice(0, rootKey.lastIndexOf(':')) : null;
  const namespace = attribute(root, prefix === null ? 'xmlns' : `xmlns:${prefix}`);
  const message = child(root, 'BkToCstmrStmt');
  const body = Object.keys(isElement(root) ? root : {}).filter(isChildKey).map(localName);
  const isStatement = localName(rootKey) === 'Document' && namespace !== null && camt053Namespace.test(namespace) && isElement(message);
  if (isStatement) return message;

  const found = `${localName(rootKey)}${body[0] ? `/${body[0]}` : ''}`;
  const messageName = namespace === null ? null : iso20022Message.exec(namespace)?.[1];
  if (messageName && !messageName.startsWith('camt.053.')) {
    throw new Camt053Error(`Not a camt.053 statement: the file is a ${messageName} message (${found}, namespace ${namespace})`);
  }
  if (namespace === null || !camt053Namespace.test(namespace)) {
    const inNamespace = namespace === null ? 'without a namespace' : `in namespace ${namespace}`;
    throw new Camt053Error(`Not a camt.053 statement: the root element is ${found} ${inNamespace}; expected Document/BkToCstmrStmt in a camt.053.001.xx namespace`);
  }
  throw new Camt053Error(`Not a camt.053 statement: the root element is ${found}; expected Document/BkToCstmrStmt`);
};

/** A camt.053 document: one BkToCstmrStmt with one or more Stmt. Throws Camt053Error on anything malformed. */
export const parseCamt053 = (xml: string | Buffer): BankStatement[] => {
  const source = decode(xml);
  if (source.trim() === '') throw new Camt053Error('The file is empty');
  // No DTD, so no entity declarations or expansion (anywhere, comments too: a statement has none).
  if (/<!DOCTYPE/i.test(source)) throw new Camt053Error('The file has a DOCTYPE; DTDs and entity declarations are refused (a camt.053 statement has none)');
  const validation = XMLValidator.validate(source);
  if (validation !== true) {
    const { line, col, msg } = validation.err;
    throw new Camt053Error(`Not well-formed XML at line ${line}${col === undefined ? '' : `, column ${col}`}: ${msg}`);
  }
  let document: unknown;
  try {
    document = parser.parse(source);
  } catch (error) {
    throw new Camt053Error(`Not well-formed XML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isElement(document)) throw new Camt053Error('Not well-formed XML: no root element');

  const message = statementMessage(document);
  const messageId = field(max35, 'GrpHdr', child(message, 'GrpHdr'), 'MsgId');
  if (messageId === null) throw new Camt053Error('GrpHdr/MsgId is missing');
  const createdAt = text(message, 'GrpHdr', 'CreDtTm');
  if (createdAt !== null) dateOfDateTime(createdAt, 'GrpHdr', 'CreDtTm');
  const statements = children(message, 'Stmt');
  if (statements.length === 0) throw new Camt053Error('BkToCstmrStmt has no Stmt');
  const entries = statements.reduce((count: number, statement) => count + children(statement, 'Ntry').length, 0);
  if (entries > maxCamt053Entries) throw new Camt053Error(`The file has ${entries} entries (Ntry); at most ${maxCamt053Entries} are taken`);
  return statements.map((statement, i) => parseStatement(statement, i + 1, messageId, createdAt));
};
