import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/outbox-sweeper/handler';
import { outboxEventItem } from '../../shared/outbox/repository';
import { dynamo, outboxTableName } from '../../shared/platform/aws';
import { sweepPendingEvents, type SweepResult } from '../../shared/webhooks/relay';
import { api } from '../support/api';
import { lambdaContext } from '../../infra/local/lambda-context';
import { newFirm } from '../support/people';
import { testStack } from '../support/stack';
import { runTool } from '../support/tools';

/**
 * The outbox sweeper relays events the stream relay never saw. Such an event is made here as the
 * stream cannot pass it on: put under another entity (an INSERT the relay's filter drops), then
 * turned into a pending outbox event by an update (a MODIFY, which the filter drops too), as if
 * it had been left beyond the stream's 24 hours.
 */
let firm: Awaited<ReturnType<typeof newFirm>>;
let companyId: string;

beforeAll(async () => {
  firm = await newFirm('Sweeper');
  companyId = await firm.company();
});

const missedEvent = async (minutesAgo: number): Promise<string> => {
  const occurredAt = new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const item = outboxEventItem('company.updated', companyId, { companyId }, occurredAt);
  await dynamo().send(new PutCommand({ TableName: outboxTableName(), Item: { ...item, entity: 'sweeperTestPlaceholder' } }));
  await dynamo().send(new UpdateCommand({ TableName: outboxTableName(), Key: { PK: item.PK, SK: item.SK }, UpdateExpression: 'SET entity = :event', ExpressionAttributeValues: { ':event': 'outboxEvent' } }));
  return item.id;
};

const feedOf = async (): Promise<{ id: string }[]> => (await api('GET', `/v1/events?company_id=${companyId}&page_size=200`, { token: firm.systemToken })).body.data;
const sweep = (olderThanSeconds: number): Promise<SweepResult> => sweepPendingEvents({ olderThanSeconds, lookbackDays: 2, limit: 1000 });

describe('outbox sweeper', () => {
  it('relays an event the stream relay missed into the feed, exactly once, even when two sweeps run at once', async () => {
    const eventId = await missedEvent(30);
    // The stream relay does not see it (nothing but the sweeper will relay it).
    expect((await feedOf()).map((entry) => entry.id)).not.toContain(eventId);

    const [first, second] = await Promise.all([sweep(600), sweep(600)]);
    expect(first.relayed + second.relayed).toBe(1);
    expect(first.failed + second.failed).toBe(0);
    const feed = (await feedOf()).filter((entry) => entry.id === eventId);
    expect(feed).toHaveLength(1);

    // Relayed, it leaves the pending index: a later sweep finds it no more.
    const again = await sweep(600);
    expect(again.found).toBe(again.alreadyRelayed + again.relayed + again.failed);
    expect((await feedOf()).filter((entry) => entry.id === eventId)).toHaveLength(1);
  });

  it('leaves events younger than its bound to the stream relay', async () => {
    const eventId = await missedEvent(1);
    await sweep(600);
    expect((await feedOf()).map((entry) => entry.id)).not.toContain(eventId);
    // With a bound of a few seconds it takes it.
    await sweep(5);
    expect((await feedOf()).map((entry) => entry.id)).toContain(eventId);
  });

  it('the scheduled handler sweeps with the bounds of its environment and answers what it did', async () => {
    const eventId = await missedEvent(30);
    const result = (await handler({}, lambdaContext('outbox-sweeper', 300)));
    expect(result.relayed).toBeGreaterThanOrEqual(1);
    expect(result.limitReached).toBe(false);
    expect((await feedOf()).filter((entry) => entry.id === eventId)).toHaveLength(1);
  });

  it('npm run admin -- outbox-sweep lists the pending events with --dry-run and relays them without', async () => {
    const eventId = await missedEvent(30);
    const dir = mkdtempSync(join(tmpdir(), 'outbox-sweep-'));
    try {
      writeFileSync(join(dir, 'stack.json'), JSON.stringify(testStack()));
      const admin = (...args: string[]) => runTool('infra/tools/admin.ts', 'outbox-sweep', '--stack', join(dir, 'stack.json'), ...args);
      const dry = await admin('--dry-run', '--json');
      expect(dry.code, dry.stderr).toBe(0);
      expect(JSON.parse(dry.stdout).pending.map((event: { id: string }) => event.id)).toContain(eventId);
      expect((await feedOf()).map((entry) => entry.id)).not.toContain(eventId);

      const run = await admin();
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Found \d+ pending: relayed [1-9]\d*, already relayed \d+, failed \d+$/m);
      expect((await feedOf()).filter((entry) => entry.id === eventId)).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
