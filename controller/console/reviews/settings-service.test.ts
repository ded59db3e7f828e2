/** SettingsService caches stored settings until the store's change mark moves: every change must show. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../store/ports.js';
import { openSqliteStore } from '../../store/sqlite/open-sqlite-store.js';
import type { Actor } from '../permissions.js';
import { SettingsService } from './settings-service.js';

const admin: Actor = { userEmail: 'admin@example.com', keyId: null, role: 'admin', permissions: new Set(['manage_settings']) };

let store: Store | undefined;
afterEach(() => store?.close());

function setup(): { store: Store; settings: SettingsService } {
  store = openSqliteStore(':memory:');
  return { store, settings: new SettingsService({ store, clock: () => 1 }) };
}

describe('SettingsService cache', () => {
  it('shows its own updates at once', () => {
    const { settings } = setup();
    expect(settings.reviews().is_config_review_required).toBe(false);
    expect(settings.webhook().enabled).toBe(false);
    settings.updateReviews({ is_config_review_required: true }, admin);
    expect(settings.reviews().is_config_review_required).toBe(true);
    settings.updateWebhook({ webhookURL: 'http://127.0.0.1:9/hook', webhookKey: 'k' }, admin);
    expect(settings.webhookTarget()).toMatchObject({ url: 'http://127.0.0.1:9/hook', key: 'k' });
  });

  it('keeps the stored values through a refused update, and sees writes made past the service', () => {
    const { store, settings } = setup();
    settings.updateWebhook({ webhookURL: 'http://127.0.0.1:9/hook', webhookKey: 'k' }, admin);
    expect(() => settings.updateWebhook({ webhookURL: 'http://127.0.0.1:9/other', webhookKey: '' }, admin)).toThrow();
    expect(settings.webhookTarget().url).toBe('http://127.0.0.1:9/hook');
    store.transaction(() => store.settings.set('reviews', { is_config_review_required: true }));
    expect(settings.reviews().is_config_review_required).toBe(true);
    // Inside a transaction (no change mark) reads go to the store, seeing the transaction's own writes.
    store.transaction(() => {
      store.settings.set('reviews', { is_config_review_required: false });
      expect(settings.reviews().is_config_review_required).toBe(false);
    });
    expect(settings.reviews().is_config_review_required).toBe(false);
  });
});
