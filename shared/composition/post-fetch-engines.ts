import { autoReconciliationEngine } from '../bank/auto-reconciliation';
import type { PostFetchEngine } from '../imports/post-fetch';

/** The engines that run after every fetch (general rule 8), in this order. */
export const postFetchEngines: readonly PostFetchEngine[] = [autoReconciliationEngine];

/** Their names, in order: what a fetch run records as queued. */
export const postFetchEngineNames: readonly string[] = postFetchEngines.map((engine) => engine.name);
