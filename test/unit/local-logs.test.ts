import { describe, expect, it } from 'vitest';
import { accessLine, readableRecord } from '../../infra/local/log-format';
import { nodeVersionNotice, sdkWarningVariable } from '../../infra/tools/node-version';

describe('npm start logs', () => {
  it('one readable line per request: time, method, path, status, ms, requestId', () => {
    const line = accessLine({ method: 'GET', path: '/v1/whoami', status: 200, ms: 12, requestId: 'r-1' }, new Date('2026-01-15T09:30:00.123Z'));
    expect(line).toBe('09:30:00.123 GET    /v1/whoami 200 12 ms r-1');
  });

  it('drops the handlers\' JSON "request completed" records and renders the others as one line', () => {
    const completed = JSON.stringify({ level: 'INFO', message: 'request completed', timestamp: '2026-01-15T09:30:00.123Z', requestId: 'r-1', status: 200 });
    expect(readableRecord(completed)).toBeUndefined();
    const failure = JSON.stringify({ level: 'ERROR', message: 'Unhandled error', timestamp: '2026-01-15T09:30:00.123Z', requestId: 'r-2', error: { name: 'TypeError', message: 'x is undefined', stack: 'TypeError: x is undefined\n    at f (a.ts:1:1)' } });
    expect(readableRecord(failure)).toBe('09:30:00.123 ERROR  Unhandled error r-2 TypeError: x is undefined\n    at f (a.ts:1:1)');
    expect(readableRecord('[local] seeding demo data')).toBe('[local] seeding demo data');
  });

  it("renders the functions' metrics (EMF lines) as one line: names, values and dimensions", () => {
    const emf = JSON.stringify({
      _aws: { Timestamp: Date.parse('2026-01-15T09:30:00.123Z'), CloudWatchMetrics: [{ Namespace: 'LedgerService', Dimensions: [['service', 'operation', 'statusClass']], Metrics: [{ Name: 'Requests', Unit: 'Count' }] }] },
      requestId: 'r-1',
      service: 'ledger-api',
      operation: 'whoami',
      statusClass: '2xx',
      Requests: 1,
    });
    expect(readableRecord(emf)).toBe('09:30:00.123 METRIC Requests=1 operation=whoami statusClass=2xx');
  });
});

describe("the AWS SDK's Node.js-version warning", () => {
  it('is replaced by one line once, on Node.js older than 22, and silenced for the processes started after it', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(nodeVersionNotice('v20.20.2', env)).toMatch(/^note: running on Node\.js v20\.20\.2/);
    expect(env[sdkWarningVariable]).toBe('true');
    expect(nodeVersionNotice('v20.20.2', env), 'a child process inherits the environment: no second notice').toBeUndefined();
    expect(nodeVersionNotice('v22.23.3', {})).toBeUndefined();
  });
});
