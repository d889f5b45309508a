import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../platform/aws';
import type { Item, Key } from './attributes';

/**
 * Sets and removes attributes of one item (an Update, so attributes other features keep on it,
 * such as reconciliationGroupId, survive). False when the condition failed.
 */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

export const updateItem = async (key: Key, set: Item, remove: string[], condition?: Condition): Promise<boolean> => {
  const names: Record<string, string> = { ...condition?.names };
  const values: Record<string, unknown> = { ...condition?.values };
  const sets = Object.entries(set).map(([name, value], i) => {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removes = remove.map((name, i) => {
    names[`#r${i}`] = name;
    return `#r${i}`;
  });
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].join(' ').trim(),
        ConditionExpression: condition?.expression,
        ExpressionAttributeNames: names,
        ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: values }),
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
};

/** Puts an item unless one with its key exists; false when it did. */
export const putIfAbsent = async (item: Item): Promise<boolean> => {
  try {
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
};
