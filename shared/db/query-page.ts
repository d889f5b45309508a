import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../platform/aws';
import { decodeCursor, encodeCursor, type CursorBinding } from '../platform/cursor';
import { tableDefinition } from './table-definition';

export interface Page<T> {
  data: T[];
  pagination: { next_cursor: string | null; has_more: boolean };
}

export interface PageRequest {
  pageSize: number;
  cursor?: string;
  binding: CursorBinding;
}

/** Queries one filtered page may take (each evaluates a page and one more item, or 1 MB): the bound of a sparse filter's cost. */
export const maxQueriesPerFilteredPage = 10;

/**
 * One page of a Query, with a signed cursor. It reads one item more than the page so that
 * has_more is exact (DynamoDB alone may hand back a LastEvaluatedKey with nothing after it). A
 * filter applies after DynamoDB's Limit, so a filtered page reads on until it has a page and one
 * more, or the partition ends (then has_more is exact too), or it took maxQueriesPerFilteredPage
 * Queries (then the page may be short, and has_more true).
 */
export const queryPage = async <T>(
  input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>,
  request: PageRequest,
  toResource: (item: Record<string, unknown>) => T,
): Promise<Page<T>> => {
  const startKey = request.cursor ? await decodeCursor(request.cursor, request.binding) : undefined;
  const items: Record<string, unknown>[] = [];
  let lastKey = startKey;
  for (let queries = 1; ; queries++) {
    const result = await dynamo().send(new QueryCommand({ ...input, Limit: request.pageSize + 1, ExclusiveStartKey: lastKey }));
    items.push(...(result.Items ?? []));
    lastKey = result.LastEvaluatedKey;
    if (!lastKey || items.length > request.pageSize || !input.FilterExpression || queries >= maxQueriesPerFilteredPage) break;
  }
  const pageItems = items.slice(0, request.pageSize);
  let nextKey: Record<string, unknown> | undefined;
  if (items.length > request.pageSize) nextKey = keyOf(pageItems.at(-1)!, input.IndexName);
  else if (lastKey) nextKey = lastKey; // the 1 MB read cap or the bound of a filtered page cut it short
  return {
    data: pageItems.map(toResource),
    pagination: {
      next_cursor: nextKey ? await encodeCursor(nextKey, request.binding) : null,
      has_more: nextKey !== undefined,
    },
  };
};

const keyOf = (item: Record<string, unknown>, indexName: string | undefined): Record<string, unknown> => {
  const names: string[] = [tableDefinition.partitionKey, tableDefinition.sortKey];
  const index = tableDefinition.globalSecondaryIndexes.find((gsi) => gsi.indexName === indexName);
  if (index) names.push(index.partitionKey, index.sortKey);
  return Object.fromEntries(names.map((name) => [name, item[name]]));
};
