import type { LightMyRequestResponse } from 'fastify';
import { createConsole, type ConsoleInstance } from '../compose.js';

export const ADMIN_KEY = 'console-test-admin-key';

export interface TestConsole extends ConsoleInstance {
  /** Sends a request as the given key (admin by default); bodies are JSON. */
  call(method: string, url: string, body?: unknown, key?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** Creates a key with the role and returns its secret. */
  keyFor(email: string, role: string, scopes?: string[]): Promise<string>;
}

/** A console on a fresh SQLite :memory: database (or the memory fake) with a known admin key. */
export function createTestConsole(options: { db?: string; clock?: () => number; webhookTimeoutMs?: number } = {}): TestConsole {
  const instance = createConsole({ db: options.db ?? ':memory:', bootstrapKey: ADMIN_KEY, publicUrl: 'http://console.test', clock: options.clock, webhookTimeoutMs: options.webhookTimeoutMs });
  return {
    ...instance,
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
