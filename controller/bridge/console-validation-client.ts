import type { ConsoleClient } from '../reconcile/console-client.js';
import type { ChangeValidationClient } from './bridge-service.js';

/** The bridge's answers go through the console's change-validation endpoint, like any receiver's. */
export function consoleValidationClient(client: ConsoleClient): ChangeValidationClient {
  return {
    progress: async (reviewID, message) => {
      await client.request('POST', '/console/v1/change_validation', { reviewID, message });
    },
    decide: async (reviewID, validated, message, debugLinks) => {
      await client.request('POST', '/console/v1/change_validation', {
        reviewID,
        validated,
        message: message.slice(0, 4000),
        ...(debugLinks.length > 0 ? { debugLinks: debugLinks.map((url, i) => ({ title: i === 0 ? 'Desired state in git' : `Link ${i + 1}`, url })) } : {}),
      });
    },
  };
}
