import { SaxesParser } from 'saxes';
import { clip } from '../platform/text';

/** The namespace of Norwegian SAF-T Financial, both versions. */
export const saftNamespace = 'urn:StandardAuditFile-Taxation-Financial:NO';

/** The schema versions the service validates against (shared/saft/xsd/). */
export const saftVersions = ['1.10', '1.30'] as const;
export type SaftVersion = (typeof saftVersions)[number];

/** AuditFileVersion as files write it -> the schema version. 1.0 is what the published 1.10 examples say. */
const versionOf = (text: string): SaftVersion | undefined =>
  ({ '1.0': '1.10', '1.00': '1.10', '1.1': '1.10', '1.10': '1.10', '1.3': '1.30', '1.30': '1.30' } as Record<string, SaftVersion>)[text.trim()];

export type SaftFileProblemCode = 'not_xml' | 'compressed' | 'dtd_refused' | 'not_saft' | 'unsupported_version' | 'truncated' | 'not_utf8' | 'invalid_number';

/** How deep elements may nest: a SAF-T Financial file nests at most 8 levels (AuditFile/…/TaxAmount/Amount). */
export const maxDepth = 16;

/**
 * Memory bounds of the parse (files over 32 MiB are not checked against the XSD, so these are
 * what stops a hostile file). Refusals name the element; ParseOptions.limits lowers them in tests.
 */
export const parseLimits = {
  /**
   * Characters of one element's text, and of anything the XML parser buffers between two events
   * (a text node, comment or tag). SAF-T's longest text type holds 256 (SAFlongtextType); Notes
   * and Website are unbounded in the XSD but never near 64 Ki characters.
   */
  elementText: 65_536,
  /** Characters of one tag with its attributes (a namespace declaration is one). */
  tag: 4 * 1024 * 1024,
  /**
   * Lines of one Transaction (one voucher, held in memory until it closes). Large vouchers (a
   * payroll run, a bank settlement) hold thousands of lines; 50,000 keeps one at some 100 MB.
   */
  transactionLines: 50_000,
  /**
   * Characters one record collects (a Transaction with its lines, a master-data record, the
   * Header, a Journal's own fields), each value counted 32 more for what holding it costs.
   */
  recordChars: 32 * 1024 * 1024,
};
export type ParseLimits = typeof parseLimits;
/** What a collected value costs beyond its characters (see parseLimits.recordChars). */
const valueCost = 32;

/** Why a file is not a SAF-T Financial file this service reads; `line` where the parser knows it. */
export class SaftFileError extends Error {
  readonly code: SaftFileProblemCode;
  readonly line: number | undefined;

  constructor(code: SaftFileProblemCode, message: string, line?: number) {
    super(message);
    this.name = 'SaftFileError';
    this.code = code;
    this.line = line;
  }
}

/** A record's leaf texts by path below the record ('DebitAmount/Amount'), in document order. */
export type Fields = Map<string, string[]>;
export const field = (fields: Fields, path: string): string | undefined => fields.get(path)?.[0];

/** The records of a file, as the parser meets them (MasterFiles precede GeneralLedgerEntries in both schemas). */
export interface SaftSink {
  header(fields: Fields, version: SaftVersion): void;
  account(fields: Fields): void;
  customer(fields: Fields): void;
  supplier(fields: Fields): void;
  analysisType(fields: Fields): void;
  taxTableEntry(fields: Fields): void;
  transaction(fields: Fields, lines: Fields[], journal: Fields): void;
  controlTotals(fields: Fields): void;
  /** An element outside the records the service reads (e.g. MasterFiles/Owners), once per occurrence. */
  notRead(path: string): void;
  /** A child of a record that the mapping does not carry, once per occurrence. */
  recordChild(record: string, child: string): void;
}

/** Record elements by path below AuditFile; their children are collected as Fields. */
const records: Record<string, 'header' | 'account' | 'customer' | 'supplier' | 'analysisType' | 'taxTableEntry' | 'transaction' | 'journal'> = {
  Header: 'header',
  'MasterFiles/GeneralLedgerAccounts/Account': 'account',
  'MasterFiles/Customers/Customer': 'customer',
  'MasterFiles/Suppliers/Supplier': 'supplier',
  'MasterFiles/AnalysisTypeTable/AnalysisTypeTableEntry': 'analysisType',
  'MasterFiles/TaxTable/TaxTableEntry': 'taxTableEntry',
  'GeneralLedgerEntries/Journal': 'journal',
  'GeneralLedgerEntries/Journal/Transaction': 'transaction',
};
/** Containers passed through (not counted as not read). */
const containers = new Set(['MasterFiles', 'MasterFiles/GeneralLedgerAccounts', 'MasterFiles/Customers', 'MasterFiles/Suppliers', 'MasterFiles/AnalysisTypeTable', 'MasterFiles/TaxTable', 'GeneralLedgerEntries']);
const controlTotalNames = new Set(['NumberOfEntries', 'TotalDebit', 'TotalCredit']);

interface Open {
  name: string;
  text: string;
  hasChild: boolean;
}

export interface ParseOptions {
  /** Stop reading once the header is read (the start request's check). */
  headerOnly?: boolean;
  /** Awaited after each chunk written to the parser: where the caller applies what it collected (backpressure). */
  afterChunk?: () => Promise<void>;
  /** Lower bounds than parseLimits (tests). */
  limits?: Partial<ParseLimits>;
}

const gzipMagic = [0x1f, 0x8b];
const zipMagic = [0x50, 0x4b, 0x03, 0x04];
const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((b, i) => bytes[i] === b);

/**
 * Streams a SAF-T Financial file through a SAX parser (saxes) into the sink: memory holds one
 * transaction at a time, never the file. Refuses what is not a SAF-T Financial file before any
 * record: compressed bytes, a DOCTYPE (no DTD, so no entity expansion), another root element or
 * namespace, an unknown AuditFileVersion. A file that ends early is `truncated`.
 * Returns the version once the header is read (headerOnly) or the whole file is.
 */
export const parseSaft = async (source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>, sink: SaftSink, options: ParseOptions = {}): Promise<{ version: SaftVersion; header: Fields }> => {
  const limits: ParseLimits = { ...parseLimits, ...options.limits };
  // Chunks go to the XML parser in slices: what it buffers between two events is checked after each.
  const slice = Math.min(64 * 1024, limits.elementText);
  let sinceEvent = 0;
  let inTag = false;
  const parser = new SaxesParser({ xmlns: true, position: true });
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const stack: Open[] = [];
  let rootSeen = false;
  let version: SaftVersion | undefined;
  let header: Fields | undefined;
  let headerDone = false;
  // The record being collected: its kind, depth in the stack, and fields.
  let record: { kind: string; depth: number; fields: Fields; path: string; held: number } | undefined;
  let journal: Fields = new Map();
  const journalHeld = { held: 0 };
  let transaction: { fields: Fields; lines: Fields[]; depth: number; held: number } | undefined;
  let line: { fields: Fields; depth: number } | undefined;
  let controlTotals: Fields = new Map();
  const totalsHeld = { held: 0 };
  let failure: Error | undefined;

  const fail = (error: Error) => {
    failure ??= error;
    throw error;
  };
  /** A name or namespace from the file, as a message quotes it: at most 200 of its characters and an ellipsis. */
  const quoted = (text: string) => clip(text, 201);
  const pathOf = (from: number) =>
    stack
      .slice(from)
      .map((open) => open.name)
      .join('/');
  /** Adds a value to a record's fields, charged to `holder` (at most limits.recordChars; `what` names the record). */
  const add = (fields: Fields, path: string, value: string, holder: { held: number }, what: string) => {
    holder.held += value.length + valueCost;
    if (holder.held > limits.recordChars) fail(new SaftFileError('not_saft', `${what} holds more than ${limits.recordChars} characters of text; a SAF-T record holds far less.`, parser.line));
    const values = fields.get(path);
    if (values) values.push(value);
    else fields.set(path, [value]);
  };

  const event = () => {
    sinceEvent = 0;
  };
  for (const name of ['xmldecl', 'comment', 'processinginstruction'] as const) parser.on(name, event);
  parser.on('opentagstart', () => {
    event();
    inTag = true;
  });
  parser.on('doctype', () => fail(new SaftFileError('dtd_refused', 'The file has a DOCTYPE; DTDs and entity declarations are refused (a SAF-T file has none).', parser.line)));
  parser.on('error', (error) => fail(rootSeen ? new SaftFileError('not_xml', `The file is not well-formed XML: ${error.message}`, parser.line) : new SaftFileError('not_xml', `The file is not XML: ${error.message}`, parser.line)));
  parser.on('opentag', (tag) => {
    event();
    inTag = false;
    const node = tag;
    if (!rootSeen) {
      rootSeen = true;
      if (node.local !== 'AuditFile' || node.uri !== saftNamespace) {
        fail(new SaftFileError('not_saft', `The root element is {${quoted(node.uri)}}${quoted(node.local)}; a SAF-T Financial file has {${saftNamespace}}AuditFile.`, parser.line));
      }
    } else {
      const parent = stack.at(-1);
      if (parent) {
        // An element with children: its own text (whitespace between them) is never read.
        parent.hasChild = true;
        parent.text = '';
      }
      if (node.uri !== saftNamespace) fail(new SaftFileError('not_saft', `Element {${quoted(node.uri)}}${quoted(node.local)} is not in the SAF-T Financial namespace ${saftNamespace}.`, parser.line));
    }
    if (stack.length >= maxDepth) fail(new SaftFileError('not_saft', `Elements nest deeper than ${maxDepth} levels (${quoted(node.local)}); a SAF-T Financial file nests at most 8.`, parser.line));
    stack.push({ name: node.local, text: '', hasChild: false });
    if (stack.length === 1) return;
    const path = pathOf(1);
    if (!headerDone && stack.length === 2 && node.local !== 'Header') fail(new SaftFileError('not_saft', `The file has no Header before ${quoted(node.local)}.`, parser.line));
    if (transaction && !line && stack.length === transaction.depth + 1 && node.local === 'Line') {
      if (transaction.lines.length >= limits.transactionLines) {
        fail(new SaftFileError('not_saft', `Transaction ${JSON.stringify(quoted(field(transaction.fields, 'TransactionID') ?? ''))} holds more than ${limits.transactionLines} lines (<Line>).`, parser.line));
      }
      line = { fields: new Map(), depth: stack.length };
      return;
    }
    if (record || transaction) return;
    const kind = records[path];
    if (kind === 'transaction') transaction = { fields: new Map(), lines: [], depth: stack.length, held: 0 };
    else if (kind === 'journal') {
      journal = new Map();
      journalHeld.held = 0;
    } else if (kind) record = { kind, depth: stack.length, fields: new Map(), path, held: 0 };
    else if (!containers.has(path) && !(path.startsWith('GeneralLedgerEntries/') && controlTotalNames.has(node.local) && stack.length === 3) && !path.startsWith('GeneralLedgerEntries/Journal/')) {
      sink.notRead(path);
    }
  });
  /** Text of the open element: kept only while it has no child, and at most limits.elementText characters. */
  const addText = (text: string) => {
    event();
    const open = stack.at(-1);
    if (!open) {
      if (text.trim()) fail(new SaftFileError('not_xml', 'The file has text outside its root element.', parser.line));
      return;
    }
    if (open.hasChild) return;
    open.text += text;
    if (open.text.length > limits.elementText) fail(tooLong());
  };
  const tooLong = () =>
    new SaftFileError('not_saft', `The text of <${quoted(pathOf(0))}> is longer than ${limits.elementText} characters; no SAF-T element holds that much.`, parser.line);
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    event();
    const open = stack.at(-1)!;
    const depth = stack.length;
    const value = open.text.trim();
    if (line) {
      if (depth === line.depth) {
        transaction!.lines.push(line.fields);
        line = undefined;
      } else if (!open.hasChild) add(line.fields, pathOf(line.depth), value, transaction!, 'A Transaction with its lines');
    } else if (transaction) {
      if (depth === transaction.depth) {
        sink.transaction(transaction.fields, transaction.lines, journal);
        transaction = undefined;
      } else if (!open.hasChild) add(transaction.fields, pathOf(transaction.depth), value, transaction, 'A Transaction with its lines');
    } else if (record) {
      if (depth === record.depth) {
        const done = record;
        record = undefined;
        if (done.kind === 'header') {
          header = done.fields;
          const stated = field(header, 'AuditFileVersion') ?? '';
          version = versionOf(stated);
          if (!version) fail(new SaftFileError('unsupported_version', `AuditFileVersion is "${stated.slice(0, 40)}"; this service reads SAF-T Financial 1.10 and 1.30.`, parser.line));
          headerDone = true;
          sink.header(header, version!);
        } else if (done.kind === 'account') sink.account(done.fields);
        else if (done.kind === 'customer') sink.customer(done.fields);
        else if (done.kind === 'supplier') sink.supplier(done.fields);
        else if (done.kind === 'analysisType') sink.analysisType(done.fields);
        else if (done.kind === 'taxTableEntry') sink.taxTableEntry(done.fields);
      } else {
        if (depth === record.depth + 1 && record.kind !== 'header') sink.recordChild(record.path.split('/').at(-1)!, open.name);
        if (!open.hasChild) add(record.fields, pathOf(record.depth), value, record, `<${record.path}>`);
      }
    } else if (depth === 2 && open.name === 'GeneralLedgerEntries') {
      sink.controlTotals(controlTotals);
      controlTotals = new Map();
      totalsHeld.held = 0;
    } else if (depth === 4 && pathOf(1).startsWith('GeneralLedgerEntries/Journal/') && !open.hasChild) {
      add(journal, open.name, value, journalHeld, '<GeneralLedgerEntries/Journal>');
    } else if (depth === 3 && stack[1]?.name === 'GeneralLedgerEntries' && controlTotalNames.has(open.name)) {
      add(controlTotals, open.name, value, totalsHeld, '<GeneralLedgerEntries>');
    }
    stack.pop();
  });

  let first = true;
  try {
    for await (const chunk of source) {
      const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
      if (first && bytes.length) {
        first = false;
        if (startsWith(bytes, gzipMagic) || startsWith(bytes, zipMagic)) {
          throw new SaftFileError('compressed', 'The file is compressed (gzip or zip bytes), not XML; upload the XML itself.');
        }
      }
      let text: string;
      try {
        text = decoder.decode(bytes, { stream: true });
      } catch {
        throw new SaftFileError('not_utf8', 'The file is not UTF-8 text (SAF-T files are UTF-8).', parser.line);
      }
      try {
        for (let at = 0; at < text.length; at += slice) {
          const part = text.slice(at, at + slice);
          parser.write(part);
          if (failure) break;
          // Reset by each event: more than this is one text node, comment or tag the parser holds whole.
          sinceEvent += part.length;
          const inside = stack.length ? `<${quoted(pathOf(0))}>` : 'the file';
          if (inTag && sinceEvent > limits.tag + slice) fail(new SaftFileError('not_saft', `A tag in ${inside} is longer than ${limits.tag} characters.`, parser.line));
          if (!inTag && sinceEvent > limits.elementText + slice) {
            fail(new SaftFileError('not_saft', `A text or comment in ${inside} is longer than ${limits.elementText} characters; no SAF-T element holds that much.`, parser.line));
          }
        }
      } catch (error) {
        // The sink's refusals (a number that is none) get the line the parser is at.
        throw error instanceof SaftFileError && error.line === undefined ? new SaftFileError(error.code, error.message, parser.line) : error;
      }
      if (failure) throw failure;
      if (options.headerOnly && headerDone) return { version: version!, header: header! };
      await options.afterChunk?.();
    }
    if (rootSeen && stack.length) throw new SaftFileError('truncated', `The file ends inside <${stack.at(-1)!.name}>: it is truncated.`, parser.line);
    parser.close();
  } catch (error) {
    throw failure ?? error;
  }
  if (!rootSeen) throw new SaftFileError('not_xml', 'The file is empty or holds no XML element.');
  if (!headerDone) throw new SaftFileError('not_saft', 'The file has no Header.');
  return { version: version!, header: header! };
};
