import { randomUUID } from 'node:crypto';
import { createLedgerClient, fetchAccessToken, waitForImport } from '../client';

/**
 * The integrator's example of the README, with the typed client (client/): a token, a company
 * bound to Api, a chart, opening balances and GL lines, then the trial balance.
 *
 *   API=http://127.0.0.1:3000 TOKEN_URL=http://127.0.0.1:3001/oauth2/token \
 *   CLIENT_ID=... CLIENT_SECRET=... npx tsx examples/first-trial-balance.ts
 */
const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`Set ${name}`);
  return value;
};

const token = await fetchAccessToken(env('TOKEN_URL'), env('CLIENT_ID'), env('CLIENT_SECRET'));
const api = createLedgerClient({ baseUrl: env('API'), token });
const key = () => ({ 'Idempotency-Key': randomUUID() });

const created = await api.POST('/v1/companies', {
  params: { header: key() },
  body: { displayName: 'Typed Client AS', accountingSystem: 'Api' },
});
if (created.error) throw new Error(created.error.detail);
const companyId = created.data.id;
const path = { companyId };

const steps = [
  () =>
  api.POST('/v1/companies/{companyId}/imports/accounts', {
    params: { path, header: key() },
    body: {
      year: 2026,
      accounts: [
        { accountCode: '1920', accountDescription: 'Bank deposits', accountCategory: 'Balance' },
        { accountCode: '2050', accountDescription: 'Other equity', accountCategory: 'Balance' },
        { accountCode: '3000', accountDescription: 'Sales revenue', accountCategory: 'Result' },
      ],
    },
  }),
  () =>
    api.POST('/v1/companies/{companyId}/imports/opening-balances', {
      params: { path, header: key() },
      body: { year: 2026, lines: [{ id: 'OB-1920', accountCode: '1920', amount: '1000.00' }, { id: 'OB-2050', accountCode: '2050', amount: '-1000.00' }] },
    }),
  () =>
    api.POST('/v1/companies/{companyId}/imports/general-ledger-lines', {
      params: { path, header: key() },
      body: {
        year: 2026,
        lines: [
          { id: 'GL-1', accountCode: '1920', amount: '250.00', period: 1, transactionId: 'V-1' },
          { id: 'GL-2', accountCode: '3000', amount: '-250.00', period: 1, transactionId: 'V-1' },
        ],
      },
    }),
];
for (const step of steps) {
  const { data, error } = await step();
  if (error) throw new Error(`${error.error}: ${error.detail}`);
  const done = await waitForImport(api, companyId, data.id);
  if (done.status !== 'succeeded') throw new Error(`Import ${done.kind} ${done.status}: ${done.sampleErrors.join('; ')}`);
}

const { data: trialBalance, error } = await api.GET('/v1/companies/{companyId}/trial-balance', { params: { path, query: { year: 2026 } } });
if (error) throw new Error(error.detail);
// Amounts arrive as their exact text (strings such as "1250.00"): printed as they are, every digit.
for (const account of trialBalance.accounts) {
  console.log(`${account.accountCode} ${(account.description ?? '').padEnd(16)} ${account.closingBalance.padStart(10)}`);
}
console.log(`${'total'.padEnd(21)} ${trialBalance.totals.closingBalance.padStart(10)}`);
