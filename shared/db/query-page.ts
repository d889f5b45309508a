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

/**
 * One page of a Query, with a signed cursor. It reads one item more than the page so that
 * has_more is exact (DynamoDB alone may hand back a LastEvaluatedKey with nothing after it).
 */
export const queryPage = async <T>(
  input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>,
  request: PageRequest,
  toResource: (item: Record<string, unknown>) => T,
): Promise<Page<T>> => {
  const startKey = request.cursor ? await decodeCursor(request.cursor, request.binding) : undefined;
  const result = await dynamo().send(new QueryCommand({ ...input, Limit: request.pageSize + 1, ExclusiveStartKey: startKey }));
  const items = result.Items ?? [];
  const pageItems = items.slice(0, request.pageSize);
  let nextKey: Record<string, unknown> | undefined;
  if (items.length > request.pageSize) nextKey = keyOf(pageItems.at(-1)!, input.IndexName);
  else if (result.LastEvaluatedKey) nextKey = result.LastEvaluatedKey; // the 1 MB read cap cut the page short
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
