import { autoReconciliationEngine } from '../bank/auto-reconciliation';
import { contextEngine } from '../context/engine';
import type { PostFetchEngine } from '../imports/post-fetch';

/** The engines that run after every fetch (general rule 8), in this order: the context service reads what auto-reconciliation left. */
export const postFetchEngines: readonly PostFetchEngine[] = [autoReconciliationEngine, contextEngine];

/** Their names, in order: what a fetch run records as queued. */
export const postFetchEngineNames: readonly string[] = postFetchEngines.map((engine) => engine.name);
