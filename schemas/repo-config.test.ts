import { describe, expect, it } from 'vitest';
import { parseWith } from '../controller/core/zod-errors.js';
import { RepoConfigSchema } from './repo-config.js';

const windows = (freezeWindows: unknown[]) => parseWith(RepoConfigSchema, { bridge: { freezeWindows } });

describe('flagops.yaml freeze windows', () => {
  it('accepts an absolute window, a weekly one, one past midnight and one for every day', () => {
    expect(windows([{ start: '2026-12-20T00:00:00Z', end: '2027-01-04T00:00:00Z' }, { days: ['fri'], from: '16:00' }, { days: ['fri', 'sat'], from: '22:00', to: '06:00' }, { from: '00:00', to: '06:00', reason: 'nightly' }]).ok).toBe(true);
  });

  it('refuses a window that sets no period, one that mixes both kinds, and an empty list of days', () => {
    const result = windows([{ reason: 'nothing' }, { start: '2026-12-20T00:00:00Z', days: ['mon'] }, { days: [], from: '10:00' }]);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors).toEqual([
      { property: 'bridge.freezeWindows[0]', errorMessage: 'sets no period: give start and/or end (an absolute freeze), or days, from and/or to (a weekly one)' },
      { property: 'bridge.freezeWindows[1]', errorMessage: 'mixes an absolute freeze (start, end) with a weekly one (days, from, to): make them two windows' },
      { property: 'bridge.freezeWindows[2].days', errorMessage: 'is empty: the window would never be active; leave days out for every day' },
    ]);
  });
});

describe('flagops.yaml ownership', () => {
  it('accepts kinds and entities with field paths, and defaults to owning nothing', () => {
    const parsed = parseWith(RepoConfigSchema, { ownership: { console: { gates: ['isEnabled', 'rules[*].passPercentage'], 'gates/kill_switch': ['owner.ownerEmail'] } } });
    expect(parsed.ok && parsed.value.ownership.console['gates/kill_switch']).toEqual(['owner.ownerEmail']);
    expect(RepoConfigSchema.parse({}).ownership).toEqual({ console: {} });
  });

  it('names each malformed part, never throws', () => {
    const errors = (ownership: unknown) => {
      const parsed = parseWith(RepoConfigSchema, { ownership });
      return parsed.ok ? [] : parsed.errors.map((e) => e.property);
    };
    expect(errors(5)).toEqual(['ownership']);
    expect(errors({ console: { gates: 'isEnabled' } })).toEqual(['ownership.console.gates']);
    expect(errors({ console: { gates: ['rules[0].passPercentage', 7] } })).toEqual(['ownership.console.gates[0]', 'ownership.console.gates[1]']);
    expect(errors({ console: { 'Gates!': ['isEnabled'] } })).toEqual(['ownership.console.Gates!']);
    expect(errors({ server: {} })).toEqual(['ownership.server']);
  });
});
