import type { PostFetchEngine } from './post-fetch';

/**
 * The engines that run after every fetch. Auto-reconciliation joins this list with the bank
 * and reconciliation feature; until then a fetch run completes with no engines to run.
 */
export const postFetchEngines: readonly PostFetchEngine[] = [];
