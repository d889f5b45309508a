import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keyId, storedInteger } from '../db/attributes';
import { batchGet, inParallel } from '../db/batch';
import { queryPage, type Page, type PageRequest } from '../db/query-page';
import type { TransactionWrite } from '../db/unit-of-work';
import { dynamo, tableName } from '../platform/aws';
import { documentDeclarationKeys, documentKeys, documentLineLinkKeys, documentListKeys, documentListPartition } from './keys';
import type { DocumentContentType } from './schemas';

export interface DocumentLinks {
  lineIds: string[];
  transactionIds: string[];
}

/** What a declaration says about the file, and the document made from it keeps. */
export interface DocumentFile {
  companyId: string;
  fileName: string;
  contentType: DocumentContentType;
  sizeBytes: number;
  sha256: string;
  description: string | null;
  links: DocumentLinks;
}

/** An upload declared and not completed yet; the document does not exist. */
export interface DeclarationRecord extends DocumentFile {
  documentId: string;
  declaredAt: string;
  declaredBy: string;
  uploadUrlExpiresAt: string;
  /** Completion after this instant answers 410 upload_expired. */
  completeBy: string;
}

export interface DocumentRecord extends DocumentFile {
  id: string;
  createdAt: string;
  createdBy: string;
  deletedAt: string | null;
}

/** How long an expired declaration is kept (so completion answers 410, not 404) before DynamoDB TTL removes it. */
const expiredDeclarationRetentionSeconds = 7 * 24 * 3600;

const toLinks = (value: unknown): DocumentLinks => {
  const links = (value ?? {}) as Partial<DocumentLinks>;
  return { lineIds: [...(links.lineIds ?? [])], transactionIds: [...(links.transactionIds ?? [])] };
};

/** What a declaration and the document made from it both say about the file. */
const fileFields = (item: Record<string, unknown>): DocumentFile => ({
  companyId: item.companyId as string,
  fileName: item.fileName as string,
  contentType: item.contentType as DocumentContentType,
  sizeBytes: storedInteger(item.sizeBytes),
  sha256: item.sha256 as string,
  description: (item.description as string | null | undefined) ?? null,
  links: toLinks(item.links),
});

const toDeclaration = (item: Record<string, unknown>): DeclarationRecord => ({
  documentId: item.documentId as string,
  ...fileFields(item),
  declaredAt: item.declaredAt as string,
  declaredBy: item.declaredBy as string,
  uploadUrlExpiresAt: item.uploadUrlExpiresAt as string,
  completeBy: item.completeBy as string,
});

const toDocument = (item: Record<string, unknown>): DocumentRecord => ({
  id: item.id as string,
  ...fileFields(item),
  createdAt: item.createdAt as string,
  createdBy: item.createdBy as string,
  deletedAt: (item.deletedAt as string | null | undefined) ?? null,
});

export interface DocumentListFilter {
  from?: string;
  to?: string;
  contentType?: string;
  linkedLineId?: string;
}

export const documentRepository = {
  /** Read strongly: completion, restore and the client's own reads follow a write of the same item (a racing completion, the restore's answer). */
  async get(documentId: string): Promise<DocumentRecord | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: documentKeys(documentId), ConsistentRead: true }));
    return Item ? toDocument(Item) : undefined;
  },

  async getDeclaration(documentId: string): Promise<DeclarationRecord | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: documentDeclarationKeys(documentId), ConsistentRead: true }));
    return Item ? toDeclaration(Item) : undefined;
  },

  async declare(declaration: DeclarationRecord): Promise<void> {
    const expiresAt = Math.ceil(Date.parse(declaration.completeBy) / 1000) + expiredDeclarationRetentionSeconds;
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...documentDeclarationKeys(declaration.documentId), entity: 'documentDeclaration', ...declaration, expiresAt },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  },

  /**
   * The writes that create the document from its declaration: the document (refused when it
   * exists) and the declaration's removal (refused when another completion removed it first).
   */
  /**
   * Creates the document and removes its declaration; refused when the document exists, when the
   * declaration is gone, or when its `completeBy` is before `completeByFrom` (ISO instants compare
   * as strings: both come from toISOString).
   */
  completeWrites(document: DocumentRecord, completeByFrom: string): TransactionWrite[] {
    return [
      {
        Put: {
          TableName: tableName(),
          Item: { ...documentKeys(document.id), ...documentListKeys(document.companyId, document.createdAt, document.id), entity: 'document', ...document },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Delete: {
          TableName: tableName(),
          Key: documentDeclarationKeys(document.id),
          ConditionExpression: 'attribute_exists(PK) AND completeBy >= :completeByFrom',
          ExpressionAttributeValues: { ':completeByFrom': completeByFrom },
        },
      },
    ];
  },

  /** Soft delete: leaves the list index (sparse GSI1); refused when it was already deleted. */
  softDeleteWrite(document: DocumentRecord, deletedAt: string, deletedBy: string): TransactionWrite {
    return {
      Update: {
        TableName: tableName(),
        Key: documentKeys(document.id),
        UpdateExpression: 'SET deletedAt = :at, deletedBy = :by REMOVE GSI1PK, GSI1SK',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(deletedAt) OR deletedAt = :null)',
        ExpressionAttributeValues: { ':at': deletedAt, ':by': deletedBy, ':null': null },
      },
    };
  },

  /** Back into the list at its place; refused when it was not deleted (any more). */
  restoreWrite(document: DocumentRecord): TransactionWrite {
    const listKeys = documentListKeys(document.companyId, document.createdAt, document.id);
    return {
      Update: {
        TableName: tableName(),
        Key: documentKeys(document.id),
        UpdateExpression: 'SET GSI1PK = :pk, GSI1SK = :sk, deletedAt = :null REMOVE deletedBy',
        ConditionExpression: 'attribute_exists(PK) AND attribute_exists(deletedAt) AND deletedAt <> :null',
        ExpressionAttributeValues: { ':pk': listKeys.GSI1PK, ':sk': listKeys.GSI1SK, ':null': null },
      },
    };
  },

  /** Adds the document to the link item of each line (idempotent; before the document is created, see completeUpload). */
  async addLineLinks(companyId: string, lineIds: readonly string[], documentId: string): Promise<void> {
    await inParallel(lineIds, 16, (lineId) =>
      dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: documentLineLinkKeys(companyId, lineId),
          UpdateExpression: 'SET entity = :entity, companyId = :company, lineId = :line ADD documentIds :document',
          ExpressionAttributeValues: { ':entity': 'documentLineLinks', ':company': companyId, ':line': lineId, ':document': new Set([documentId]) },
        }),
      ),
    );
  },

  /** The document ids on the link items of these lines (strongly consistent); lines without any are left out. */
  async lineLinks(companyId: string, lineIds: readonly string[]): Promise<Map<string, string[]>> {
    const found = await batchGet(lineIds.map((lineId) => documentLineLinkKeys(companyId, lineId)), ['documentIds']);
    const links = new Map<string, string[]>();
    for (const lineId of lineIds) {
      const ids = found.get(keyId(documentLineLinkKeys(companyId, lineId)))?.documentIds;
      if (ids instanceof Set && ids.size > 0) links.set(lineId, [...(ids as Set<string>)].sort());
    }
    return links;
  },

  /** Declarations, then documents, by id (strongly consistent; in this order, see documentsHoldingLines). */
  async declarationsThenDocuments(documentIds: readonly string[]): Promise<{ declarations: Map<string, DeclarationRecord>; documents: Map<string, DocumentRecord> }> {
    const declarationItems = await batchGet(documentIds.map(documentDeclarationKeys));
    const documentItems = await batchGet(documentIds.map(documentKeys));
    const declarations = new Map<string, DeclarationRecord>();
    const documents = new Map<string, DocumentRecord>();
    for (const id of documentIds) {
      const declaration = declarationItems.get(keyId(documentDeclarationKeys(id)));
      if (declaration) declarations.set(id, toDeclaration(declaration));
      const document = documentItems.get(keyId(documentKeys(id)));
      if (document) documents.set(id, toDocument(document));
    }
    return { declarations, documents };
  },

  /** Live documents of a company, newest first; from/to are a key condition, the rest filters. */
  async list(companyId: string, filter: DocumentListFilter, request: PageRequest): Promise<Page<DocumentRecord>> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {
      ':pk': documentListPartition(companyId),
      ':from': filter.from ?? '0000',
      // Sort keys start with the ISO instant: every instant of the day `to` sorts before `<to>~`.
      ':to': `${filter.to ?? '9999-12-31'}~`,
    };
    const conditions: string[] = [];
    if (filter.contentType) {
      names['#contentType'] = 'contentType';
      values[':contentType'] = filter.contentType;
      conditions.push('#contentType = :contentType');
    }
    if (filter.linkedLineId) {
      names['#links'] = 'links';
      names['#lineIds'] = 'lineIds';
      values[':lineId'] = filter.linkedLineId;
      conditions.push('contains(#links.#lineIds, :lineId)');
    }
    return queryPage(
      {
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to',
        ScanIndexForward: false,
        ...(conditions.length && { FilterExpression: conditions.join(' AND '), ExpressionAttributeNames: names }),
        ExpressionAttributeValues: values,
      },
      request,
      toDocument,
    );
  },
};
