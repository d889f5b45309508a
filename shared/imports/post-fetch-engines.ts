import { autoReconciliationEngine } from '../bank/auto-reconciliation';
import type { PostFetchEngine } from './post-fetch';

/** The engines that run after every fetch (general rule 8), in this order. */
export const postFetchEngines: readonly PostFetchEngine[] = [autoReconciliationEngine];
