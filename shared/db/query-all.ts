import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../platform/aws';

/** Every item of a Query, page after page (for bounded result sets; lists use queryPage). The single table unless `table` names another. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- stored items as DynamoDB returns them; each repository reads them into its record type
export const queryAll = async (input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>, table: string = tableName()): Promise<Record<string, any>[]> => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- stored items (see above)
  const items: Record<string, any>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await dynamo().send(new QueryCommand({ TableName: table, ...input, ExclusiveStartKey: startKey }));
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return items;
};

/** How many items a Query matches (Select COUNT), page after page; the filter counts, the items are not read back. */
export const queryCount = async (input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Select'>, table: string = tableName()): Promise<number> => {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await dynamo().send(new QueryCommand({ TableName: table, ...input, Select: 'COUNT', ExclusiveStartKey: startKey }));
    count += result.Count ?? 0;
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return count;
};
