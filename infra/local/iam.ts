import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { outboxTableDefinition, tableDefinition } from '../../shared/db/table-definition';
import { dynamo } from '../../shared/platform/aws';
import type { DynamoGrant } from '../stacks/permissions';

/**
 * The DynamoDB grants of infra/stacks/permissions.ts, enforced in the local stack: the gateway
 * and the queue pollers run each handler as its function (runAs), and every DynamoDB request made
 * on its behalf is checked against that function's grants, as IAM would on AWS. A request the
 * function may not make fails with AccessDeniedException, so a read path that starts writing, or a
 * grant narrowed below what the code needs, fails the integration tests instead of production.
 * Code outside a handler (seeding, tools, tests calling services directly) is not checked.
 */
export interface Caller {
  /** Function name for messages, e.g. `ledger` or `imports-worker`. */
  readonly name: string;
  readonly grants: readonly DynamoGrant[];
}

export interface LocalTables {
  readonly table: string;
  readonly controlTable: string;
  readonly outboxTable: string;
}

export class AccessDeniedException extends Error {
  override readonly name = 'AccessDeniedException';
}

const callers = new AsyncLocalStorage<Caller>();
const enforced = new WeakSet<DynamoDBDocumentClient>();
let tables: LocalTables | undefined;
/** Every denial since start, for the stack's owner to report (the handler may have turned one into a 500). */
export const denials: string[] = [];

/** Points the check at the stack's tables. */
export const configureLocalIam = (localTables: LocalTables): void => {
  tables = localTables;
};

/** The function whose invocation is running (undefined outside a handler). */
export const currentCaller = (): Caller | undefined => callers.getStore();
/** Runs a handler invocation as `caller`: its DynamoDB requests (and their continuations) are checked. */
export const runAs = <T>(caller: Caller, invoke: () => Promise<T>): Promise<T> => {
  enforceOn(dynamo());
  return callers.run(caller, invoke);
};

interface Access {
  action: string;
  table: string;
  index?: string;
  /** The partition-key value, when the request names one item. */
  partitionKey?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the input of whichever DynamoDB command the middleware sees
type Input = Record<string, any>;

const partitionKeyOf = (key: Input | undefined): string | undefined => {
  const value = key?.[tableDefinition.partitionKey];
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof value.S === 'string') return value.S; // marshalled
  return undefined;
};

/** A table Query's partition key value (its dynamodb:LeadingKeys), from `PK = :value` in the key condition. */
const queriedPartitionKey = (input: Input): string | undefined => {
  const match = /^\s*(#?\w+)\s*=\s*(:\w+)/.exec(String(input.KeyConditionExpression ?? ''));
  if (!match) return undefined;
  const name = match[1]!.startsWith('#') ? input.ExpressionAttributeNames?.[match[1]!] : match[1];
  if (name !== tableDefinition.partitionKey) return undefined;
  return partitionKeyOf({ [name]: input.ExpressionAttributeValues?.[match[2]!] });
};

/** The IAM actions a request needs, one per item for batches and transactions (as IAM evaluates them). */
export const accessesOf = (commandName: string, input: Input): Access[] => {
  const operation = commandName.replace(/Command$/, '');
  switch (operation) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ action: operation, table: input.TableName, partitionKey: partitionKeyOf(input.Key) }];
    case 'PutItem':
      return [{ action: operation, table: input.TableName, partitionKey: partitionKeyOf(input.Item) }];
    case 'Query':
      return [{ action: operation, table: input.TableName, ...(input.IndexName ? { index: input.IndexName } : { partitionKey: queriedPartitionKey(input) }) }];
    case 'Scan':
      return [{ action: operation, table: input.TableName, ...(input.IndexName && { index: input.IndexName }) }];
    case 'BatchGetItem':
      return Object.entries((input.RequestItems ?? {}) as Record<string, { Keys?: Input[] }>).flatMap(([table, request]) =>
        (request.Keys ?? []).map((key) => ({ action: operation, table, partitionKey: partitionKeyOf(key) })),
      );
    case 'BatchWriteItem':
      return Object.entries((input.RequestItems ?? {}) as Record<string, Input[]>).flatMap(([table, requests]) =>
        requests.map((request) => ({
          action: operation,
          table,
          partitionKey: partitionKeyOf(request.PutRequest?.Item ?? request.DeleteRequest?.Key),
        })),
      );
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return ((input.TransactItems ?? []) as Input[]).map((item) => {
        const [kind, request] = Object.entries(item)[0] as [string, Input];
        const action = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' }[kind] ?? kind;
        return { action, table: request.TableName, partitionKey: partitionKeyOf(request.Item ?? request.Key) };
      });
    default:
      return [{ action: operation, table: input.TableName ?? '*' }];
  }
};

const resourceMatches = (grant: DynamoGrant, access: Access, localTables: LocalTables): boolean => {
  switch (grant.resource) {
    case 'controlTable':
      return access.table === localTables.controlTable && !access.index;
    case 'table':
      return access.table === localTables.table && !access.index;
    case 'tableIndexes':
      return access.table === localTables.table && !!access.index && tableDefinition.globalSecondaryIndexes.some((gsi) => gsi.indexName === access.index);
    case 'outboxTable':
      return access.table === localTables.outboxTable && !access.index;
    case 'outboxTableIndexes':
      return access.table === localTables.outboxTable && !!access.index && outboxTableDefinition.globalSecondaryIndexes.some((gsi) => gsi.indexName === access.index);
  }
};

/** Whether one of the grants allows the access (conditions on leading keys need the item's partition key). */
export const isAllowed = (grants: readonly DynamoGrant[], access: Access, localTables: LocalTables): boolean =>
  grants.some(
    (grant) =>
      grant.actions.includes(`dynamodb:${access.action}` as DynamoGrant['actions'][number]) &&
      resourceMatches(grant, access, localTables) &&
      (!grant.leadingKeyPrefixes ||
        (access.partitionKey !== undefined && grant.leadingKeyPrefixes.some((prefix) => access.partitionKey!.startsWith(prefix)))),
  );

const describe = (access: Access): string =>
  `dynamodb:${access.action} on ${access.table}${access.index ? `/index/${access.index}` : ''}${access.partitionKey ? ` (PK ${access.partitionKey})` : ''}`;

const enforceOn = (client: DynamoDBDocumentClient): void => {
  if (enforced.has(client)) return;
  enforced.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const caller = callers.getStore();
      if (caller && tables) {
        for (const access of accessesOf(context.commandName ?? '', args.input)) {
          if (isAllowed(caller.grants, access, tables)) continue;
          const message = `local IAM: function ${caller.name} is not allowed ${describe(access)} (infra/stacks/permissions.ts)`;
          denials.push(message);
          console.error(message);
          throw new AccessDeniedException(message);
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'localIamCheck', priority: 'high' },
  );
};
