/* eslint-disable @typescript-eslint/no-explicit-any -- builds examples from untyped OpenAPI schema objects */
import type { OperationContract } from '../api/operation';

type Schema = Record<string, any>;

/** Plausible values by property name, for examples built from schemas. */
const byName: Record<string, unknown> = {
  id: '9b2e4c1a-7d3f-4e8a-b5c6-1f0a2d3e4b5c',
  companyId: '3f1c2b9e-5d4a-4c1e-9b7a-0e2d6c8f1a23',
  organizationId: '5e8d7c6b-4a3f-4e2d-9c1b-0a9f8e7d6c5b',
  accountCode: '1920',
  accountNumber: '1920',
  glAccountCode: '1920',
  description: 'Bank deposits',
  name: 'Bakeriet Solsiden AS',
  displayName: 'Bakeriet Solsiden AS',
  organizationNumber: '923609016',
  year: 2026,
  currentYear: 2026,
  period: 1,
  currency: 'NOK',
  currencyCode: 'NOK',
  transactionId: 'V-1',
  transactionNo: '1',
  transactionDate: '2026-01-15',
  bookingDate: '2026-01-15',
  valueDate: '2026-01-15',
  from: '2026-01-01',
  to: '2026-01-31',
  sourceLineId: 'GL-1',
  lineId: 'GL-1',
  key: 'D-10',
  value: 'Bakery',
  clientId: '4q1d5k2m8n3p6r7s9t0v',
  requestId: '1c9e5a3b-2d4f-4a6b-8c0d-e1f2a3b4c5d6',
  detail: 'The import has 1 structural problem(s); nothing was accepted.',
  message: 'Something to know about',
  note: 'Card payment',
  reason: 'Customer left the firm',
  resultUrl: '/v1/companies/3f1c2b9e-5d4a-4c1e-9b7a-0e2d6c8f1a23/imports/9b2e4c1a-7d3f-4e8a-b5c6-1f0a2d3e4b5c',
  next_cursor: null,
  has_more: false,
  label: 'January',
  iban: 'NO9315032012340',
  bic: 'DNBANOKK',
  counterpartyName: 'Kafe Solsiden',
  counterpartyAccount: 'NO9386011117947',
  statementId: 'STMT-2026-01',
  taxCode: '3',
  createdBy: 'auto-reconciliation',
  approvedBy: null,
  type: 'bank_transaction',
  mode: 'incremental',
  accountingSystem: 'Api',
  openapi: '3.0.3',
  sampleErrors: 'line 3: account 3000 is hidden in 2026',
  failureReason: null,
  transactionIds: 'V-7',
  unknown: 'GL-404',
  fetchRunId: null,
  failureType: 'post_fetch_engine_failed',
  blockers: 'no_accounts',
  warnings: 'unmapped_accounts',
  nextStep: 'import_opening_balances',
  field: 'amount',
  title: 'Validation failed',
  error: 'validation_failed',
  scopes: 'ledger:read',
  dimensionKeys: 'D-10',
  subLedgerKeys: 'C-1001',
  lane: 'general_ledger_lines',
};

const formatExample: Record<string, unknown> = {
  uuid: '9b2e4c1a-7d3f-4e8a-b5c6-1f0a2d3e4b5c',
  'date-time': '2026-01-15T09:30:00.000Z',
  date: '2026-01-15',
  uri: 'https://api.example.com/problems/validation_failed',
  decimal: '1250.00',
};

const resolve = (schema: Schema, document: Schema): Schema => {
  let current = schema;
  for (let depth = 0; current?.$ref && depth < 10; depth++) current = document.components.schemas[current.$ref.replace('#/components/schemas/', '')];
  return current;
};

/** An example value for a schema: its own `example`, else built from its shape, named properties and formats. */
export const sampleSchema = (input: Schema | undefined, document: Schema, name?: string, depth = 0): unknown => {
  if (!input || depth > 12) return undefined;
  const schema = resolve(input, document);
  if (!schema) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (schema.allOf?.length) {
    const parts = schema.allOf.map((part: Schema) => sampleSchema(part, document, name, depth + 1));
    return parts.every((part: unknown) => part && typeof part === 'object' && !Array.isArray(part)) ? Object.assign({}, ...parts) : parts[0];
  }
  if (schema.oneOf?.length || schema.anyOf?.length) return sampleSchema((schema.oneOf ?? schema.anyOf)[0], document, name, depth + 1);
  if (schema.enum?.length) return name && schema.enum.includes(byName[name]) ? byName[name] : schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const type = schema.type ?? (schema.properties ? 'object' : undefined);
  if (name && name in byName) {
    const value = byName[name];
    if (value === null ? schema.nullable : typeof value === (type === 'integer' ? 'number' : type)) return value;
  }
  switch (type) {
    case 'object': {
      const result: Record<string, unknown> = {};
      for (const [property, propertySchema] of Object.entries<Schema>(schema.properties ?? {})) {
        const value = sampleSchema(propertySchema, document, property, depth + 1);
        if (value !== undefined) result[property] = value;
      }
      return result;
    }
    case 'array': {
      const count = Math.max(schema.minItems ?? 1, schema.maxItems === 0 ? 0 : 1);
      return Array.from({ length: count }, (_, i) => {
        const item = sampleSchema(schema.items, document, name, depth + 1);
        // Months of a year, periods and the like: count up where the items are numbered.
        if (item && typeof item === 'object' && 'period' in item && typeof (item).period === 'number' && count === 12) {
          const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
          return { ...item, period: i + 1, ...('label' in item && { label: months[i] }) };
        }
        return item;
      });
    }
    case 'string':
      return formatExample[schema.format] ?? (schema.minLength > 6 ? 'x'.repeat(schema.minLength) : 'text');
    case 'integer':
      return schema.minimum ?? 1;
    case 'number':
      return schema.minimum ?? 1250.5;
    case 'boolean':
      return true;
    default:
      return schema.nullable ? null : undefined;
  }
};

const httpMethods = ['get', 'put', 'post', 'delete', 'patch'];

/** Puts a request example (the contract's, else built) on every body and a response example on every success response. */
export const addExamples = <T>(document: T, contracts: Record<string, Pick<OperationContract, 'requestExample' | 'responseExample'>>): T => {
  const doc = document as Schema;
  for (const item of Object.values<Schema>(doc.paths ?? {})) {
    for (const method of httpMethods) {
      const operation = item[method];
      if (!operation) continue;
      const docs = contracts[operation.operationId];
      for (const media of Object.values<Schema>(operation.requestBody?.content ?? {})) {
        if (media.example === undefined) media.example = docs?.requestExample ?? sampleSchema(media.schema, doc);
      }
      for (const [status, response] of Object.entries<Schema>(operation.responses ?? {})) {
        if (!/^2/.test(status)) continue;
        for (const media of Object.values<Schema>(response.content ?? {})) {
          if (media.example === undefined) media.example = docs?.responseExample ?? sampleSchema(media.schema, doc);
        }
      }
    }
  }
  return document;
};
