import type { Scope } from './identity/scopes';

/** The one route table: CDK builds API Gateway routes from it, the local gateway serves it. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export type FunctionGroup = 'identity' | 'companies' | 'openapi' | 'fallback';

export interface RouteDefinition {
  method: HttpMethod;
  /** API Gateway path with {param} placeholders. */
  path: string;
  group: FunctionGroup;
  operationId: string;
  summary: string;
  /** 'token': needs a valid bearer token; 'public': no authorizer. */
  auth: 'token' | 'public';
  /** Scope the token must hold; undefined with auth 'token' means any valid token. */
  scope?: Scope;
  /** Mutations require an Idempotency-Key header. */
  mutation: boolean;
}

export interface FunctionGroupDefinition {
  /** Handler module, relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
  memoryMb: number;
  timeoutSeconds: number;
}

export const functionGroups: Record<FunctionGroup, FunctionGroupDefinition> = {
  identity: { entry: 'functions/identity/handler.ts', description: 'Caller identity (whoami)', memoryMb: 512, timeoutSeconds: 10 },
  companies: { entry: 'functions/companies/handler.ts', description: 'Companies: list, read, create, update, delete, restore', memoryMb: 512, timeoutSeconds: 15 },
  openapi: { entry: 'functions/openapi/handler.ts', description: 'Serves the OpenAPI document', memoryMb: 512, timeoutSeconds: 10 },
  fallback: { entry: 'functions/fallback/handler.ts', description: 'Answers unknown routes and methods with problem+json', memoryMb: 256, timeoutSeconds: 5 },
};

export const authorizerEntry = 'functions/authorizer/handler.ts';

const companyPath = '/v1/companies/{companyId}';

export const routes: readonly RouteDefinition[] = [
  { method: 'GET', path: '/v1/openapi.json', group: 'openapi', operationId: 'getOpenApiDocument', summary: 'The OpenAPI 3.0.3 document of this API', auth: 'public', mutation: false },
  { method: 'GET', path: '/v1/whoami', group: 'identity', operationId: 'whoami', summary: 'Who the credential is', auth: 'token', mutation: false },
  { method: 'GET', path: '/v1/companies', group: 'companies', operationId: 'listCompanies', summary: 'List the companies within reach', auth: 'token', scope: 'companies:read', mutation: false },
  { method: 'POST', path: '/v1/companies', group: 'companies', operationId: 'createCompany', summary: 'Create a company', auth: 'token', scope: 'companies:write', mutation: true },
  { method: 'GET', path: companyPath, group: 'companies', operationId: 'getCompany', summary: 'Read one company', auth: 'token', scope: 'companies:read', mutation: false },
  { method: 'PATCH', path: companyPath, group: 'companies', operationId: 'updateCompany', summary: 'Update a company (patch semantics)', auth: 'token', scope: 'companies:write', mutation: true },
  { method: 'DELETE', path: companyPath, group: 'companies', operationId: 'deleteCompany', summary: 'Soft-delete a company', auth: 'token', scope: 'companies:write', mutation: true },
  { method: 'POST', path: `${companyPath}/actions/disable`, group: 'companies', operationId: 'disableCompany', summary: 'Disable a company', auth: 'token', scope: 'companies:write', mutation: true },
  { method: 'POST', path: `${companyPath}/actions/enable`, group: 'companies', operationId: 'enableCompany', summary: 'Enable a company', auth: 'token', scope: 'companies:write', mutation: true },
  { method: 'POST', path: `${companyPath}/restore`, group: 'companies', operationId: 'restoreCompany', summary: 'Restore a soft-deleted company', auth: 'token', scope: 'companies:write', mutation: true },
];

/** API Gateway's route key, e.g. "GET /v1/companies/{companyId}". */
export const routeKey = (route: Pick<RouteDefinition, 'method' | 'path'>): string => `${route.method} ${route.path}`;

export const routesOfGroup = (group: FunctionGroup): RouteDefinition[] => routes.filter((r) => r.group === group);
