import type { PostFetchEngine } from '../imports/post-fetch';
import { refreshContext } from './service';

/** After every fetch (and after auto-reconciliation): rebuild the company's context pictures for the fetched year. */
export const contextEngine: PostFetchEngine = {
  name: 'context',
  run: (message) => refreshContext(message.companyId, message.year),
};
