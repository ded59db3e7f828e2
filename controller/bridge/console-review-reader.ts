import type { ConsoleClient } from '../reconcile/console-client.js';
import type { ReviewReader } from './bridge-service.js';

/** Reads reviews through the console's API (the key needs `read`), as any client would. */
export function consoleReviewReader(client: ConsoleClient): ReviewReader {
  return {
    description: async (reviewID) => {
      const { data } = await client.request<{ description?: unknown }>('GET', `/console/v1/reviews/${encodeURIComponent(reviewID)}`);
      return typeof data?.description === 'string' ? data.description : undefined;
    },
  };
}
