/** Scope names from the specification (Authentication, point 5). */
export const allScopes = [
  'companies:read',
  'companies:write',
  'ledger:read',
  'vat:read',
  'bank:read',
  'reconciliation:read',
  'reconciliation:write',
  'documents:read',
  'documents:write',
  'imports:write',
  'users:read',
  'access:manage',
  'webhooks:manage',
  'context:read',
] as const;

export type Scope = (typeof allScopes)[number];

/** context:read is for interactive sessions only; a system client may hold every other scope. */
export const systemClientScopes: readonly Scope[] = allScopes.filter((s) => s !== 'context:read');

export const readOnlyScopes: readonly Scope[] = systemClientScopes.filter((s) => s.endsWith(':read'));

export const isScope = (value: string): value is Scope => (allScopes as readonly string[]).includes(value);

/** Scopes only system clients use (users, access management, webhooks, imports): a per-user client cannot hold them. */
export const systemOnlyScopes: readonly Scope[] = ['users:read', 'access:manage', 'webhooks:manage', 'imports:write'];

/** What a per-user (USER) client may hold: never more than its person may do, and never system-only scopes. */
export const userClientScopes: readonly Scope[] = systemClientScopes.filter((s) => !systemOnlyScopes.includes(s));

/** Never on an interactive (signed-in person's) token: the system-only scopes. */
export const interactiveForbiddenScopes: readonly Scope[] = systemOnlyScopes;

/** What an interactive session may be granted (the only principals that may hold context:read). */
export const interactiveScopes: readonly Scope[] = allScopes.filter((s) => !interactiveForbiddenScopes.includes(s));
