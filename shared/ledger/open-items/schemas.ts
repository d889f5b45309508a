import { lazySchema } from '../../platform/lazy-schema';
import { accountCodeSchema, amountSchema, dateSchema, keySchema, maxImportRows, sourceIdSchema } from '../../imports/fields';
import { Decimal } from '../../platform/money';
import { DateSchema, limits, text, textOut, TimestampSchema, UuidSchema } from '../../platform/schemas';
import * as z from '../../platform/zod';

/**
 * The open-items import (spec: Data import, Request line shapes "open-items", Imports and
 * corrections rules 3, 7, 10) and the read shape of a stored open item.
 *
 * Decisions where the spec is silent (rule 7 and "which fields are required"):
 * - entryCategory: invoice, credit_note, payment, prepayment, interest, reminder_fee, other.
 * - settlementStatus: open (nothing settled: amountOpen equals amount), partial (partly settled:
 *   amountOpen is neither 0 nor amount), settled (amountOpen is 0). Checked per item (validateRows).
 * - Always required: itemKey, subLedgerType. Required unless sourceDeleted is true: subLedgerKey,
 *   accountCode, documentId, entryCategory, documentDate, dueDate, amount, amountOpen,
 *   settlementStatus. Optional: matches (absent means the item has no matches), sourceDeleted.
 *   Fields sent beside sourceDeleted true are validated but not stored: the retired record keeps
 *   its last live content.
 * - A request holds at least one item: the snapshot modes learn their sub-ledger type from the
 *   items, so an empty snapshot could not say what to retire.
 */

export const subLedgerTypes = ['customer', 'supplier'] as const;
export type SubLedgerType = (typeof subLedgerTypes)[number];

export const openItemModes = ['incremental', 'full', 'full_refresh', 'baseline'] as const;
export type OpenItemMode = (typeof openItemModes)[number];
/** The modes that send a whole snapshot of one sub-ledger type; what they lack is retired (rule 3). */
export const snapshotModes: readonly OpenItemMode[] = ['full', 'full_refresh', 'baseline'];
export const isSnapshotMode = (mode: string): boolean => (snapshotModes as readonly string[]).includes(mode);

export const entryCategories = ['invoice', 'credit_note', 'payment', 'prepayment', 'interest', 'reminder_fee', 'other'] as const;
export type EntryCategory = (typeof entryCategories)[number];

export const settlementStatuses = ['open', 'partial', 'settled'] as const;
export type SettlementStatus = (typeof settlementStatuses)[number];

/** Matches one item may carry. */
export const maxMatchesPerItem = 1000;
/** Retired matches an item keeps, the most recently retired first. */
export const maxRetiredMatchesKept = 200;
/**
 * The bytes an item's matches may take, written as JSON in UTF-8 (a 200-character matchKey of
 * three-byte characters takes 600). The stored item then stays below DynamoDB's 400 KB
 * (409,600 bytes): these matches (at most 200,000 bytes) beside the retired ones it keeps (200 of
 * at most about 700 bytes each) and its other fields (a few KB).
 */
export const maxMatchBytesPerItem = 200_000;

/** The size that maxMatchBytesPerItem bounds. */
export const matchBytes = (matches: readonly { matchKey: string; matchDate: string; amount: { toString(): string } }[]): number =>
  Buffer.byteLength(JSON.stringify(matches.map((match) => ({ matchKey: match.matchKey, matchDate: match.matchDate, amount: match.amount.toString() }))), 'utf8');

const subLedgerTypeSchema = /* @__PURE__ */ lazySchema(() => z.enum(subLedgerTypes).openapi({ description: '`customer` (receivables) or `supplier` (payables)' }));

const matchKeySchema = /* @__PURE__ */ lazySchema(() => text({ max: limits.integratorId }));

export const OpenItemMatchInputSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    matchKey: matchKeySchema.openapi({ description: "The integrator's stable id of the match (settlement), unique within the item" }),
    matchDate: dateSchema.openapi({ description: 'Date of the settlement' }),
    amount: amountSchema.openapi({ description: 'Amount settled by this match; the matches of an item must not sum beyond its amount' }),
  })
  .openapi('OpenItemsImportMatch', { description: 'A settlement of an open item by another (payment against invoice)' }));

export type OpenItemMatchInput = z.infer<typeof OpenItemMatchInputSchema>;

/** Fields an item must carry unless it is sent with sourceDeleted true. */
const liveOnlyFields = [
  'subLedgerKey',
  'accountCode',
  'documentId',
  'entryCategory',
  'documentDate',
  'dueDate',
  'amount',
  'amountOpen',
  'settlementStatus',
] as const;

const requiredUnlessDeleted = 'Required unless sourceDeleted is true.';

const itemFieldsSchema = /* @__PURE__ */ lazySchema(() => z.strictObject({
  itemKey: sourceIdSchema.openapi({
    description: "Required. The integrator's stable id of the open item (no ':'); items are merged by (subLedgerType, itemKey)",
  }),
  subLedgerType: subLedgerTypeSchema.openapi({ description: "Required. Must equal the request's subLedgerType" }),
  subLedgerKey: keySchema.optional().openapi({ description: `The customer or supplier (sub-ledger key) the item belongs to. ${requiredUnlessDeleted}` }),
  accountCode: accountCodeSchema.optional().openapi({ description: `The receivable or payable account of the item. ${requiredUnlessDeleted}` }),
  documentId: text({ max: limits.integratorId }).optional().openapi({ description: `Invoice or voucher number of the document. ${requiredUnlessDeleted}` }),
  entryCategory: z.enum(entryCategories).optional().openapi({ description: `What the item is. ${requiredUnlessDeleted}` }),
  documentDate: dateSchema.optional().openapi({ description: `Date of the document. ${requiredUnlessDeleted}` }),
  dueDate: dateSchema.optional().openapi({ description: `Due date; not before documentDate. ${requiredUnlessDeleted}` }),
  amount: amountSchema.optional().openapi({ description: `Original amount of the item, signed. ${requiredUnlessDeleted}` }),
  amountOpen: amountSchema.optional().openapi({
    description: `Amount still open: 0 or of the sign of amount, never larger than amount in absolute value. ${requiredUnlessDeleted}`,
  }),
  settlementStatus: z.enum(settlementStatuses).optional().openapi({
    description: `open: amountOpen equals amount; partial: amountOpen is neither 0 nor amount; settled: amountOpen is 0. ${requiredUnlessDeleted}`,
  }),
  matches: z
    .array(OpenItemMatchInputSchema)
    .max(maxMatchesPerItem)
    .superRefine((matches, ctx) => {
      const bytes = matchBytes(matches);
      if (bytes > maxMatchBytesPerItem) ctx.addIssue({ code: 'custom', message: `take ${bytes} bytes as JSON (UTF-8); at most ${maxMatchBytesPerItem}` });
    })
    .optional()
    .openapi({
      description: `Optional. The item's live settlements. Stored ones it leaves out are kept, marked retired (in every mode; the item keeps the ${maxRetiredMatchesKept} most recently retired); one sent with a stored matchKey replaces it. Absent means no live ones. At most ${maxMatchesPerItem}, which together take at most ${maxMatchBytesPerItem.toLocaleString('en')} bytes written as JSON in UTF-8 (so that the stored item, with the retired matches it keeps, fits a database item).`,
    }),
  sourceDeleted: z.boolean().optional().openapi({
    description: 'Optional. true retires the item (it was deleted in the source); the other fields may then be left out',
  }),
}));

type ItemFields = z.infer<typeof itemFieldsSchema>;

/** A live item as applied: every field present. */
export interface LiveOpenItemRow {
  sourceDeleted: false;
  itemKey: string;
  subLedgerType: SubLedgerType;
  subLedgerKey: string;
  accountCode: string;
  documentId: string;
  entryCategory: EntryCategory;
  documentDate: string;
  dueDate: string;
  amount: Decimal;
  amountOpen: Decimal;
  settlementStatus: SettlementStatus;
  matches: OpenItemMatchInput[];
}

/** An item the source deleted: only its key and type count. */
export interface DeletedOpenItemRow extends Omit<ItemFields, 'sourceDeleted'> {
  sourceDeleted: true;
}

/** One row of the open-items import, as the import kind applies it. */
export type OpenItemRow = LiveOpenItemRow | DeletedOpenItemRow;

export const OpenItemInputSchema = /* @__PURE__ */ lazySchema(() => itemFieldsSchema
  .superRefine((item, ctx) => {
    if (item.sourceDeleted === true) return;
    for (const field of liveOnlyFields) {
      if (item[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: requiredUnlessDeleted });
    }
  })
  .transform((item): OpenItemRow => {
    if (item.sourceDeleted === true) return { ...item, sourceDeleted: true };
    // The refinement above guarantees every live field (a pipe stops at the first failing stage).
    return {
      sourceDeleted: false,
      itemKey: item.itemKey,
      subLedgerType: item.subLedgerType,
      subLedgerKey: item.subLedgerKey!,
      accountCode: item.accountCode!,
      documentId: item.documentId!,
      entryCategory: item.entryCategory!,
      documentDate: item.documentDate!,
      dueDate: item.dueDate!,
      amount: item.amount!,
      amountOpen: item.amountOpen!,
      settlementStatus: item.settlementStatus!,
      matches: item.matches ?? [],
    };
  })
  .openapi('OpenItemsImportItem', { description: 'One open item of a customer or supplier sub-ledger' }));

export const OpenItemsImportSchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    subLedgerType: subLedgerTypeSchema.openapi({ description: 'Required. The sub-ledger type every item belongs to' }),
    mode: z.enum(openItemModes).openapi({
      description: [
        'Required. incremental: touches only the items sent.',
        'full, full_refresh, baseline: the items are a snapshot of every open item of subLedgerType; live items absent from it are retired (kept, marked retired, with their matches).',
        'full_refresh applies exactly as full. Every sent item is rewritten with the matches sent as its live ones; in every mode its stored matches it leaves out are kept, marked retired (an item keeps the 200 most recently retired).',
        'baseline also marks the items it contains as the starting point of the sub-ledger.',
      ].join(' '),
    }),
    items: z.array(OpenItemInputSchema).min(1, 'must hold at least one item').max(maxImportRows).openapi({
      description: 'At most 10 000 items. All or nothing: one invalid item fails the whole import and nothing is applied.',
    }),
  })
  .superRefine(
    (body, ctx) => {
      body.items.forEach((item, index) => {
        const type = (item as { subLedgerType?: unknown } | null)?.subLedgerType;
        if ((subLedgerTypes as readonly unknown[]).includes(type) && type !== body.subLedgerType) {
          ctx.addIssue({ code: 'custom', path: ['items', index, 'subLedgerType'], message: `must equal the request's subLedgerType (${body.subLedgerType})` });
        }
      });
    },
    // The whole request is judged at once: run this check even when other items have problems.
    { when: (payload) => sameTypeCheckApplies(payload.value) },
  )
  .openapi('OpenItemsImportRequest', { description: 'Open items of one sub-ledger type (all or nothing)' }));

const sameTypeCheckApplies = (value: unknown): boolean => {
  const body = value as { items?: unknown; subLedgerType?: unknown } | null;
  return !!body && typeof body === 'object' && Array.isArray(body.items) && (subLedgerTypes as readonly unknown[]).includes(body.subLedgerType);
};

export type OpenItemsImportBody = z.infer<typeof OpenItemsImportSchema>;

// Read shape (for the open-items read endpoint to come).

const decimalSchema = /* @__PURE__ */ lazySchema(() => z
  .custom<Decimal>((value) => Decimal.isDecimal(value))
  .openapi({ type: 'number', description: 'Decimal amount, written with explicit decimals', example: 1250.5 }));

export const openItemStatuses = ['live', 'retired'] as const;
export type OpenItemStatus = (typeof openItemStatuses)[number];

export const retirementReasons = ['source_deleted', 'absent_from_snapshot'] as const;
export type RetirementReason = (typeof retirementReasons)[number];

export const OpenItemMatchSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    matchKey: textOut(limits.integratorId),
    matchDate: DateSchema,
    amount: decimalSchema,
    status: z.enum(openItemStatuses).openapi({ description: 'retired together with its item, or when a re-sent item leaves it out' }),
  })
  .openapi('OpenItemMatch'));

export const OpenItemSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    itemKey: textOut(limits.integratorId),
    subLedgerType: z.enum(subLedgerTypes),
    subLedgerKey: textOut(limits.integratorId),
    accountCode: textOut(20),
    documentId: textOut(limits.integratorId),
    entryCategory: z.enum(entryCategories),
    documentDate: DateSchema,
    dueDate: DateSchema,
    amount: decimalSchema,
    amountOpen: decimalSchema,
    settlementStatus: z.enum(settlementStatuses),
    matches: z.array(OpenItemMatchSchema).max(maxMatchesPerItem + maxRetiredMatchesKept),
    status: z.enum(openItemStatuses).openapi({
      description: 'live, or retired (deleted in the source, or absent from a later snapshot); retired items keep their last content',
    }),
    retiredAt: TimestampSchema.nullable(),
    retiredReason: z.enum(retirementReasons).nullable(),
    baseline: z.boolean().openapi({
      description: 'true when the item came from a baseline import (the starting point of the sub-ledger) and has not been re-created since; false for items that arrived later by other modes',
    }),
    datasetId: UuidSchema.openapi({ description: 'Dataset of the last import that touched the item' }),
    importId: UuidSchema.openapi({ description: 'The last import that touched the item' }),
    updatedAt: TimestampSchema,
  })
  .openapi('OpenItem'));

export type OpenItem = z.infer<typeof OpenItemSchema>;
export type OpenItemMatch = z.infer<typeof OpenItemMatchSchema>;
