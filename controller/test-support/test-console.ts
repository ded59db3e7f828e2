import type { LightMyRequestResponse } from 'fastify';
import { createConsole, type ConsoleInstance } from '../compose.js';
import { recordResponses } from './openapi-conformance.js';

export const ADMIN_KEY = 'console-test-admin-key';

export interface TestConsole extends ConsoleInstance {
  /** Sends a request as the given key (admin by default); bodies are JSON. */
  call(method: string, url: string, body?: unknown, key?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** Creates a key with the role and returns its secret. */
  keyFor(email: string, role: string, scopes?: string[]): Promise<string>;
}

export interface TestConsoleOptions {
  db?: string;
  clock?: () => number;
  webhookTimeoutMs?: number;
  /** Route patterns a test registers on the app itself (not part of the API): their responses are not checked. */
  testRoutes?: string[];
  /** Origins allowed to call OFREP from a browser with a CLIENT key. */
  corsOrigins?: string[];
}

/**
 * A console on a fresh SQLite :memory: database (or the memory fake) with a known admin key. Every
 * response it sends is checked against its own /openapi.json when it closes: close() rejects, naming
 * each response whose status or body the document does not describe.
 */
export function createTestConsole(options: TestConsoleOptions = {}): TestConsole {
  const instance = createConsole({ db: options.db ?? ':memory:', bootstrapKey: ADMIN_KEY, publicUrl: 'http://console.test', clock: options.clock, webhookTimeoutMs: options.webhookTimeoutMs, corsOrigins: options.corsOrigins });
  const recorded = recordResponses(instance.app);
  let checked = false;
  return {
    ...instance,
    close: async () => {
      let violations: string[] = [];
      try {
        // A check that cannot run fails the test: "no violations" would be a guess.
        if (!checked) violations = await recorded.violations(options.testRoutes);
      } finally {
        checked = true;
        await instance.close();
      }
      if (violations.length > 0) throw new Error(`Responses that /openapi.json does not describe:\n${violations.join('\n')}`);
    },
    call: (method, url, body, key = ADMIN_KEY, headers = {}) =>
      instance.app.inject({
        method: method as 'GET',
        url,
        headers: { 'service-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
    keyFor: async (email, role, scopes = []) => {
      await instance.app.ready();
      return (await instance.auth.createKey({ description: 'test', userEmail: email, role, scopes })).secret;
    },
  };
}
