import type { FunctionGroup } from '../routes';
import { httpAdapter } from '../api/http';
import type { Operations } from '../api/runner';
import { owners } from './owners';

/** The Lambda handler of one function group: its operations behind the runner, with the owned resources of this API. */
export const httpHandler = (group: FunctionGroup, operations: Operations) => httpAdapter(group, operations, owners);
