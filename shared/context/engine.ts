import type { PostFetchEngine } from '../imports/post-fetch';
import { refreshContext } from './service';

/** After every fetch (and after auto-reconciliation): rebuild the company's context pictures, the fetched year's beside the current one's. */
export const contextEngine: PostFetchEngine = {
  name: 'context',
  run: (message) => refreshContext(message.companyId, { years: [message.year] }),
};
