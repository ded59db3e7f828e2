/**
 * `flagops up` gives the bridge a webhook_receiver key, also in a state dir whose saved bridge key is
 * of the member role (which can no longer decide validations), and the loop still commits through it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createConsole } from '../compose.js';
import { runUp } from '../run-up.js';
import { waitUntil } from '../test-support/webhook-receiver.js';

const dir = mkdtempSync(join(tmpdir(), 'flagops-up-receiver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flagops up and the bridge key', () => {
  it('turns a saved member bridge key into a webhook_receiver key and applies through it', async () => {
    const stateDir = join(dir, '.flagops');
    mkdirSync(stateDir, { recursive: true });
    const old = createConsole({ db: join(stateDir, 'console.db'), bootstrapKey: 'up-receiver-admin' });
    await old.app.ready();
    const bridge = (await old.auth.createKey({ description: 'flagops up: the bridge', userEmail: 'bridge@localhost', role: 'member' })).secret;
    await old.close();
    writeFileSync(join(stateDir, 'up-keys.json'), JSON.stringify({ admin: 'up-receiver-admin', bridge }));

    let out = '';
    const abort = new AbortController();
    const done = runUp({ stateDir, host: '127.0.0.1', port: 0, webhookTimeoutMs: 20_000, print: (text) => void (out += text), progress: () => undefined, signal: abort.signal });
    try {
      const outcome = await waitUntil(() => /Outcome: (.*)/.exec(out)?.[1], 60_000, 'the first apply');
      expect(outcome).toMatch(/^\d+ committed\b.*the console matches the repository\.$/);
      await waitUntil(() => (out.includes('Watching') ? true : undefined), 30_000, 'the watcher');
    } finally {
      abort.abort();
      await done;
    }
    const after = createConsole({ db: join(stateDir, 'console.db'), bootstrapKey: 'up-receiver-admin' });
    try {
      await after.app.ready();
      const actor = (await after.auth.authenticate(bridge));
      expect(actor.role).toBe('webhook_receiver');
      expect([...actor.permissions].sort()).toEqual(['read', 'validate_changes']);
    } finally {
      await after.close();
    }
  }, 120_000);
});
