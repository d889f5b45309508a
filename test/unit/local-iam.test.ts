import { describe, expect, it } from 'vitest';
import { accessesOf, isAllowed } from '../../infra/local/iam';
import { authorizerDynamoGrants, dynamoGrants, groupPermissions, relayPermissions, workerPermissions, type DynamoGrant } from '../../infra/stacks/permissions';
import { companyKeys } from '../../shared/companies/keys';
import { companyContextKeys } from '../../shared/context/keys';
import { apiClientKeys, organizationKeys } from '../../shared/identity/keys';
import { personKeys } from '../../shared/identity/person-keys';
import { outboxEventKeys } from '../../shared/outbox/keys';
import { idempotencyKeys, rateLimitKeys } from '../../shared/platform/keys';
import { assignmentKeys, effectiveAccessKeys, policyKeys } from '../../shared/identity/access-keys';
import { deliveryKeys, deliverySlotKeys, eventFeedCounterKeys, eventFeedEntryKeys, subscriptionKeys } from '../../shared/webhooks/keys';

/** The local stand-in for IAM (infra/local/iam.ts) judges requests by the same grants the stacks deploy. */
const tables = { table: 'books', controlTable: 'control', outboxTable: 'outbox' };
const allowed = (grants: readonly DynamoGrant[], commandName: string, input: Record<string, unknown>) =>
  accessesOf(commandName, input).every((access) => isAllowed(grants, access, tables));

describe('local IAM', () => {
  const ledger = dynamoGrants(groupPermissions.ledger);
  const identity = dynamoGrants(groupPermissions.identity);
  const companies = dynamoGrants(groupPermissions.companies);
  const worker = dynamoGrants(workerPermissions.imports);

  it('a read-only group reads the books and their indexes but writes nothing there', () => {
    expect(allowed(ledger, 'GetItemCommand', { TableName: 'books', Key: companyKeys('c') })).toBe(true);
    expect(allowed(ledger, 'QueryCommand', { TableName: 'books', IndexName: 'GSI2' })).toBe(true);
    expect(allowed(ledger, 'QueryCommand', { TableName: 'books', IndexName: 'GSI9' })).toBe(false);
    expect(allowed(ledger, 'ScanCommand', { TableName: 'books' })).toBe(false);
    expect(allowed(ledger, 'PutItemCommand', { TableName: 'books', Item: companyKeys('c') })).toBe(false);
    expect(allowed(ledger, 'UpdateItemCommand', { TableName: 'books', Key: companyKeys('c') })).toBe(false);
    expect(allowed(ledger, 'TransactWriteItemsCommand', { TransactItems: [{ ConditionCheck: { TableName: 'books', Key: companyKeys('c') } }] })).toBe(false);
  });

  it('a group without mutations updates only rate-limit items of the control table', () => {
    expect(allowed(identity, 'UpdateItemCommand', { TableName: 'control', Key: rateLimitKeys('client') })).toBe(true);
    expect(allowed(identity, 'UpdateItemCommand', { TableName: 'control', Key: idempotencyKeys('client', 'k') })).toBe(false);
    expect(allowed(identity, 'PutItemCommand', { TableName: 'control', Item: rateLimitKeys('client') })).toBe(false);
    expect(allowed(identity, 'GetItemCommand', { TableName: 'books', Key: companyKeys('c') })).toBe(false);
    // marshalled keys are read too
    expect(allowed(identity, 'UpdateItemCommand', { TableName: 'control', Key: { PK: { S: 'RATE#client' }, SK: { S: 'RATE' } } })).toBe(true);
  });

  it('a group with mutations also claims, stores, reads and releases idempotency records, and writes the books', () => {
    for (const command of ['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'GetItemCommand']) {
      const key = idempotencyKeys('client', 'k');
      expect(allowed(companies, command, { TableName: 'control', Key: key, Item: key }), command).toBe(true);
    }
    expect(allowed(companies, 'GetItemCommand', { TableName: 'control', Key: rateLimitKeys('client') })).toBe(false);
    expect(allowed(identity, 'GetItemCommand', { TableName: 'control', Key: idempotencyKeys('client', 'k') })).toBe(false);
    expect(
      allowed(companies, 'TransactWriteItemsCommand', {
        TransactItems: [{ Put: { TableName: 'books', Item: companyKeys('c') } }, { ConditionCheck: { TableName: 'books', Key: organizationKeys('o') } }],
      }),
    ).toBe(true);
  });

  it('workers write the books in batches but never touch the control table', () => {
    expect(allowed(worker, 'BatchWriteItemCommand', { RequestItems: { books: [{ PutRequest: { Item: companyKeys('c') } }] } })).toBe(true);
    expect(allowed(worker, 'BatchGetItemCommand', { RequestItems: { books: { Keys: [companyKeys('c')] } } })).toBe(true);
    expect(allowed(worker, 'UpdateItemCommand', { TableName: 'control', Key: rateLimitKeys('client') })).toBe(false);
  });

  it('event writers only put events in the outbox table, in the transaction of their change', () => {
    const event = outboxEventKeys('e');
    expect(
      allowed(companies, 'TransactWriteItemsCommand', {
        TransactItems: [{ Update: { TableName: 'books', Key: companyKeys('c') } }, { Put: { TableName: 'outbox', Item: event } }],
      }),
    ).toBe(true);
    expect(allowed(companies, 'GetItemCommand', { TableName: 'outbox', Key: event })).toBe(false);
    expect(allowed(companies, 'UpdateItemCommand', { TableName: 'outbox', Key: event })).toBe(false);
    expect(allowed(companies, 'QueryCommand', { TableName: 'outbox', IndexName: 'GSI1' })).toBe(false);
    expect(allowed(worker, 'PutItemCommand', { TableName: 'outbox', Item: event })).toBe(true);
    // the books' grants do not reach the outbox table, nor the outbox grants the books
    expect(allowed(ledger, 'GetItemCommand', { TableName: 'outbox', Key: event })).toBe(false);
    expect(allowed(dynamoGrants({ ...groupPermissions.ledger, table: 'none', outbox: 'write' }), 'PutItemCommand', { TableName: 'books', Item: event })).toBe(false);
  });

  it('fan-out and the MCP context read events; the relay only marks them relayed', () => {
    const event = outboxEventKeys('e');
    const fanout = dynamoGrants(workerPermissions['webhook-fanout']);
    const mcp = dynamoGrants(groupPermissions.mcp);
    const relay = dynamoGrants(relayPermissions);
    expect(allowed(fanout, 'GetItemCommand', { TableName: 'outbox', Key: event })).toBe(true);
    expect(allowed(fanout, 'PutItemCommand', { TableName: 'outbox', Item: event })).toBe(false);
    expect(allowed(mcp, 'QueryCommand', { TableName: 'outbox', IndexName: 'GSI1' })).toBe(true);
    expect(allowed(mcp, 'QueryCommand', { TableName: 'outbox', IndexName: 'GSI9' })).toBe(false);
    expect(allowed(relay, 'TransactWriteItemsCommand', { TransactItems: [{ Update: { TableName: 'outbox', Key: event } }, { Put: { TableName: 'books', Item: eventFeedEntryKeys('o', 1) } }] })).toBe(true);
    // The relay writes the feed only (dynamodb:LeadingKeys EVENTFEED#): one item elsewhere refuses the whole transaction.
    expect(allowed(relay, 'TransactWriteItemsCommand', { TransactItems: [{ Update: { TableName: 'outbox', Key: event } }, { Put: { TableName: 'books', Item: companyKeys('c') } }] })).toBe(false);
    expect(allowed(relay, 'PutItemCommand', { TableName: 'outbox', Item: event })).toBe(false);
    expect(allowed(relay, 'GetItemCommand', { TableName: 'outbox', Key: event })).toBe(false);
  });

  it('the MCP function updates only the context service\'s items (a read\'s rebuild request), nothing else of the books', () => {
    const mcp = dynamoGrants(groupPermissions.mcp);
    expect(allowed(mcp, 'UpdateItemCommand', { TableName: 'books', Key: companyContextKeys('c') })).toBe(true);
    expect(allowed(mcp, 'UpdateItemCommand', { TableName: 'books', Key: companyKeys('c') })).toBe(false);
    expect(allowed(mcp, 'PutItemCommand', { TableName: 'books', Item: companyContextKeys('c') })).toBe(false);
    expect(allowed(mcp, 'DeleteItemCommand', { TableName: 'books', Key: companyContextKeys('c') })).toBe(false);
    expect(allowed(mcp, 'GetItemCommand', { TableName: 'books', Key: companyKeys('c') })).toBe(true);
  });

  it('the authorizer gets clients and organizations, and reads a person\'s partition, nothing else', () => {
    const personQuery = (pk: string) => ({ TableName: 'books', KeyConditionExpression: 'PK = :pk AND begins_with(SK, :m)', ExpressionAttributeValues: { ':pk': pk, ':m': 'MEMBER#' } });
    expect(allowed(authorizerDynamoGrants, 'GetItemCommand', { TableName: 'books', Key: personKeys('u') })).toBe(true);
    expect(allowed(authorizerDynamoGrants, 'QueryCommand', personQuery(personKeys('u').PK))).toBe(true);
    expect(allowed(authorizerDynamoGrants, 'QueryCommand', { ...personQuery('COMPANY#c'), KeyConditionExpression: '#p = :pk', ExpressionAttributeNames: { '#p': 'PK' } })).toBe(false);
    expect(allowed(authorizerDynamoGrants, 'QueryCommand', { ...personQuery(personKeys('u').PK), IndexName: 'GSI1' })).toBe(false);
    expect(allowed(authorizerDynamoGrants, 'GetItemCommand', { TableName: 'books', Key: apiClientKeys('client') })).toBe(true);
    expect(allowed(authorizerDynamoGrants, 'GetItemCommand', { TableName: 'books', Key: organizationKeys('o') })).toBe(true);
    expect(allowed(authorizerDynamoGrants, 'GetItemCommand', { TableName: 'books', Key: companyKeys('c') })).toBe(false);
    expect(allowed(authorizerDynamoGrants, 'QueryCommand', { TableName: 'books' })).toBe(false);
    expect(allowed(authorizerDynamoGrants, 'GetItemCommand', { TableName: 'control', Key: rateLimitKeys('client') })).toBe(false);
  });

  it('the webhook, feed and access writers write only their own kinds of items; their reads stay table-wide', () => {
    const cases: [string, readonly DynamoGrant[], { PK: string; SK: string }[]][] = [
      ['webhooks', dynamoGrants(groupPermissions.webhooks), [subscriptionKeys('s'), deliveryKeys('d')]],
      ['webhooks worker', dynamoGrants(workerPermissions.webhooks), [subscriptionKeys('s'), deliveryKeys('d'), deliverySlotKeys('s', 0)]],
      ['fan-out', dynamoGrants(workerPermissions['webhook-fanout']), [deliveryKeys('d')]],
      ['relay', dynamoGrants(relayPermissions), [eventFeedCounterKeys('o'), eventFeedEntryKeys('o', 1)]],
      ['access', dynamoGrants(groupPermissions.access), [policyKeys('p'), assignmentKeys('a'), effectiveAccessKeys('u')]],
    ];
    const elsewhere: { PK: string; SK: string }[] = [companyKeys('c'), organizationKeys('o'), apiClientKeys('c'), companyContextKeys('c')];
    for (const [name, grants, own] of cases) {
      for (const key of own) {
        expect(allowed(grants, 'PutItemCommand', { TableName: 'books', Item: key }), `${name} puts ${key.PK}`).toBe(true);
        expect(allowed(grants, 'UpdateItemCommand', { TableName: 'books', Key: key }), `${name} updates ${key.PK}`).toBe(true);
        expect(allowed(grants, 'DeleteItemCommand', { TableName: 'books', Key: key }), `${name} deletes ${key.PK}`).toBe(true);
      }
      for (const key of [...elsewhere, ...cases.flatMap(([other, , keys]) => (other === name ? [] : keys)).filter((key) => !own.some((mine) => mine.PK.split('#')[0] === key.PK.split('#')[0]))]) {
        expect(allowed(grants, 'PutItemCommand', { TableName: 'books', Item: key }), `${name} puts ${key.PK}`).toBe(false);
        expect(allowed(grants, 'TransactWriteItemsCommand', { TransactItems: [{ ConditionCheck: { TableName: 'books', Key: key } }] }), `${name} checks ${key.PK}`).toBe(false);
      }
      expect(allowed(grants, 'GetItemCommand', { TableName: 'books', Key: companyKeys('c') }), `${name} reads`).toBe(true);
      expect(allowed(grants, 'QueryCommand', { TableName: 'books', IndexName: 'GSI1' }), `${name} queries an index`).toBe(true);
    }
  });
});
