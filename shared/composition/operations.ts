import type { Operation, OperationContract, OperationRequest, OperationResult } from '../api/operation';
import type { OwnerOfParameters } from '../api/runner';
import type { FunctionGroup, McpOnlyOperationId, OperationId, OperationIdOfGroup, ParametersOf } from '../routes';
import type { owners } from './owners';

type AnyOperationId = OperationId | McpOnlyOperationId;

/**
 * The resource the runner's reach step hands an operation: the answer of the resolver of the first
 * owned parameter of its path ({policyId} -> PolicyRecord), undefined when the path names none.
 */
export type OwnerOf<Id extends AnyOperationId> = OwnerOfParameters<ParametersOf<Id>, typeof owners>;

/** One implementation per operation id, typed by its contract and its owner. */
export type Implementations<Ids extends AnyOperationId, Contracts extends Record<Ids, OperationContract>> = {
  [Id in Ids]: (request: OperationRequest<Contracts[Id], OwnerOf<Id>>) => Promise<OperationResult>;
};

export type OperationTable<Ids extends AnyOperationId, Contracts extends Record<Ids, OperationContract>> = {
  [Id in Ids]: Operation<Contracts[Id], OwnerOf<Id>>;
};

const table = (contracts: Record<string, OperationContract>, runs: Record<string, Operation['run']>) =>
  Object.fromEntries(Object.entries(runs).map(([id, run]) => [id, { contract: contracts[id]!, run }]));

/**
 * The operations of one function group: exactly one implementation for each route of the group
 * (a missing one, or one for an id the group has no route for, does not compile), each typed by its
 * contract and by the owner its path names.
 */
export const defineOperations = <G extends FunctionGroup, Contracts extends Record<OperationIdOfGroup<G>, OperationContract>>(
  _group: G,
  contracts: Contracts,
  runs: Implementations<OperationIdOfGroup<G>, Contracts>,
): OperationTable<OperationIdOfGroup<G>, Contracts> => table(contracts, runs as Record<string, Operation['run']>) as OperationTable<OperationIdOfGroup<G>, Contracts>;

/** The MCP-only operations (shared/routes.ts `mcpOnlyOperations`), typed the same way. */
export const defineMcpOnlyOperations = <Contracts extends Record<McpOnlyOperationId, OperationContract>>(
  contracts: Contracts,
  runs: Implementations<McpOnlyOperationId, Contracts>,
): OperationTable<McpOnlyOperationId, Contracts> => table(contracts, runs as Record<string, Operation['run']>) as OperationTable<McpOnlyOperationId, Contracts>;
