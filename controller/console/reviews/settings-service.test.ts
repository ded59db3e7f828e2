/** SettingsService caches stored settings until the store's settings mark moves: every change must show. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../store/ports.js';
import { openSqliteStore } from '../../store/sqlite/open-sqlite-store.js';
import type { Actor } from '../permissions.js';
import { SettingsService } from './settings-service.js';

const admin: Actor = { userEmail: 'admin@example.com', keyId: null, role: 'admin', permissions: new Set(['manage_settings']) };

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
});

function setup(): { store: Store; settings: SettingsService } {
  store = openSqliteStore(':memory:');
  return { store, settings: new SettingsService({ store, clock: () => 1 }) };
}

describe('SettingsService cache', () => {
  it('shows its own updates at once', async () => {
    const { settings } = setup();
    expect((await settings.reviews()).is_config_review_required).toBe(false);
    expect((await settings.webhook()).enabled).toBe(false);
    await settings.updateReviews({ is_config_review_required: true }, admin);
    expect((await settings.reviews()).is_config_review_required).toBe(true);
    await settings.updateWebhook({ webhookURL: 'http://127.0.0.1:9/hook', webhookKey: 'k' }, admin);
    expect((await settings.webhookTarget())).toMatchObject({ url: 'http://127.0.0.1:9/hook', key: 'k' });
  });

  it('keeps the stored values through a refused update, and sees writes made past the service', async () => {
    const { store, settings } = setup();
    await settings.updateWebhook({ webhookURL: 'http://127.0.0.1:9/hook', webhookKey: 'k' }, admin);
    await expect(settings.updateWebhook({ webhookURL: 'http://127.0.0.1:9/other', webhookKey: '' }, admin)).rejects.toThrow();
    expect((await settings.webhookTarget()).url).toBe('http://127.0.0.1:9/hook');
    await store.transaction((tx) => tx.settings.set('reviews', { is_config_review_required: true }));
    expect((await settings.reviews()).is_config_review_required).toBe(true);
    // Inside a transaction reads go through it, seeing its own writes.
    await store.transaction(async (tx) => {
      await tx.settings.set('reviews', { is_config_review_required: false });
      expect((await settings.reviews(tx)).is_config_review_required).toBe(false);
    });
    expect((await settings.reviews()).is_config_review_required).toBe(false);
  });
});
