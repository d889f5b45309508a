import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { api, type ApiResponse } from './api';
import { eventually, queueWaitMs } from './poll';

/** A fresh company bound to Api in organization A, so tests never disturb each other's books. */
export const newApiCompany = async (as = 'a-system', accountingSystem = 'Api'): Promise<string> => {
  const response = await api('POST', '/v1/companies', { as, body: { displayName: `Books ${randomUUID().slice(0, 8)} AS`, accountingSystem } });
  expect(response.status).toBe(201);
  return response.body.id as string;
};

/** POSTs an import body given as raw JSON text (numbers keep their source text). */
export const submitImport = (companyId: string, path: string, body: unknown, options: { as?: string; idempotencyKey?: string } = {}): Promise<ApiResponse> =>
  api('POST', `/v1/companies/${companyId}/imports/${path}`, {
    as: options.as ?? 'a-system',
    ...(typeof body === 'string' ? { rawBody: body, headers: { 'content-type': 'application/json' } } : { body }),
    ...(options.idempotencyKey && { idempotencyKey: options.idempotencyKey }),
  });

/** Polls an import until it is no longer queued (bounded: queueWaitMs). */
export const waitForImport = async (companyId: string, importId: string, as = 'a-system'): Promise<ApiResponse> =>
  eventually(async () => {
    const response = await api('GET', `/v1/companies/${companyId}/imports/${importId}`, { as });
    expect(response.status).toBe(200);
    return response.body.status !== 'queued' && response;
  }, queueWaitMs, `import ${importId} to leave the queue`);

/** Submits and waits; expects 202 and a terminal import. */
export const importAndWait = async (companyId: string, path: string, body: unknown, as = 'a-system'): Promise<ApiResponse> => {
  const accepted = await submitImport(companyId, path, body, { as });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const done = await waitForImport(companyId, accepted.body.id, as);
  expect(done.body.status).not.toBe('queued');
  return done;
};

export const chartOf = (year: number, codes: string[]) => ({
  year,
  accounts: codes.map((code) => ({
    accountCode: code,
    accountDescription: `Account ${code}`,
    accountCategory: Number(code) < 3000 ? 'Balance' : 'Result',
  })),
});

/** An open customer invoice of 1,000.00 on account 1500 (the sub-ledger CUST-1), with `fields` over it. */
export const openItem = (itemKey: string, fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  itemKey,
  subLedgerType: 'customer',
  subLedgerKey: 'CUST-1',
  accountCode: '1500',
  documentId: `INV-${itemKey}`,
  entryCategory: 'invoice',
  documentDate: '2025-01-10',
  dueDate: '2025-02-10',
  amount: '1000.00',
  amountOpen: '1000.00',
  settlementStatus: 'open',
  ...fields,
});
