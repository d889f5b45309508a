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
  const parser = new SaxesParser({ xmlns: true, position: true });
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const stack: Open[] = [];
  let rootSeen = false;
  let version: SaftVersion | undefined;
  let header: Fields | undefined;
  let headerDone = false;
  // The record being collected: its kind, depth in the stack, and fields.
  let record: { kind: string; depth: number; fields: Fields; path: string } | undefined;
  let journal: Fields = new Map();
  let transaction: { fields: Fields; lines: Fields[]; depth: number } | undefined;
  let line: { fields: Fields; depth: number } | undefined;
  let controlTotals: Fields = new Map();
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
  const add = (fields: Fields, path: string, value: string) => {
    const values = fields.get(path);
    if (values) values.push(value);
    else fields.set(path, [value]);
  };

  parser.on('doctype', () => fail(new SaftFileError('dtd_refused', 'The file has a DOCTYPE; DTDs and entity declarations are refused (a SAF-T file has none).', parser.line)));
  parser.on('error', (error) => fail(rootSeen ? new SaftFileError('not_xml', `The file is not well-formed XML: ${error.message}`, parser.line) : new SaftFileError('not_xml', `The file is not XML: ${error.message}`, parser.line)));
  parser.on('opentag', (tag) => {
    const node = tag;
    if (!rootSeen) {
      rootSeen = true;
      if (node.local !== 'AuditFile' || node.uri !== saftNamespace) {
        fail(new SaftFileError('not_saft', `The root element is {${quoted(node.uri)}}${quoted(node.local)}; a SAF-T Financial file has {${saftNamespace}}AuditFile.`, parser.line));
      }
    } else {
      const parent = stack.at(-1);
      if (parent) parent.hasChild = true;
      if (node.uri !== saftNamespace) fail(new SaftFileError('not_saft', `Element {${quoted(node.uri)}}${quoted(node.local)} is not in the SAF-T Financial namespace ${saftNamespace}.`, parser.line));
    }
    if (stack.length >= maxDepth) fail(new SaftFileError('not_saft', `Elements nest deeper than ${maxDepth} levels (${quoted(node.local)}); a SAF-T Financial file nests at most 8.`, parser.line));
    stack.push({ name: node.local, text: '', hasChild: false });
    if (stack.length === 1) return;
    const path = pathOf(1);
    if (!headerDone && stack.length === 2 && node.local !== 'Header') fail(new SaftFileError('not_saft', `The file has no Header before ${quoted(node.local)}.`, parser.line));
    if (transaction && !line && stack.length === transaction.depth + 1 && node.local === 'Line') {
      line = { fields: new Map(), depth: stack.length };
      return;
    }
    if (record || transaction) return;
    const kind = records[path];
    if (kind === 'transaction') transaction = { fields: new Map(), lines: [], depth: stack.length };
    else if (kind === 'journal') journal = new Map();
    else if (kind) record = { kind, depth: stack.length, fields: new Map(), path };
    else if (!containers.has(path) && !(path.startsWith('GeneralLedgerEntries/') && controlTotalNames.has(node.local) && stack.length === 3) && !path.startsWith('GeneralLedgerEntries/Journal/')) {
      sink.notRead(path);
    }
  });
  parser.on('text', (text) => {
    const open = stack.at(-1);
    if (open) open.text += text;
    else if (text.trim()) fail(new SaftFileError('not_xml', 'The file has text outside its root element.', parser.line));
  });
  parser.on('cdata', (text) => {
    const open = stack.at(-1);
    if (open) open.text += text;
  });
  parser.on('closetag', () => {
    const open = stack.at(-1)!;
    const depth = stack.length;
    const value = open.text.trim();
    if (line) {
      if (depth === line.depth) {
        transaction!.lines.push(line.fields);
        line = undefined;
      } else if (!open.hasChild) add(line.fields, pathOf(line.depth), value);
    } else if (transaction) {
      if (depth === transaction.depth) {
        sink.transaction(transaction.fields, transaction.lines, journal);
        transaction = undefined;
      } else if (!open.hasChild) add(transaction.fields, pathOf(transaction.depth), value);
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
        if (!open.hasChild) add(record.fields, pathOf(record.depth), value);
      }
    } else if (depth === 2 && open.name === 'GeneralLedgerEntries') {
      sink.controlTotals(controlTotals);
      controlTotals = new Map();
    } else if (depth === 4 && pathOf(1).startsWith('GeneralLedgerEntries/Journal/') && !open.hasChild) {
      add(journal, open.name, value);
    } else if (depth === 3 && stack[1]?.name === 'GeneralLedgerEntries' && controlTotalNames.has(open.name)) {
      add(controlTotals, open.name, value);
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
        parser.write(text);
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
