import { describe, expect, it } from 'vitest';
import { renderStatusText } from './render-status-text.js';
import type { StatusReport } from './status-service.js';

const summary = { in_sync: 1, drifted: 1, to_create: 0, to_update: 0, to_delete: 0, pendingReviews: 1 };

/** A report of flags against http://console, as `identity`, of these entities. */
const reportOf = (identity: string, entities: StatusReport['entities'], applyLocks: StatusReport['applyLocks'] = []): StatusReport => ({ desired: 'flags', console: 'http://console', identity, summary, entities, applyLocks });

describe('renderStatusText', () => {
  it('prints one line per entity, state first, with the fields the console owns', () => {
    const report = reportOf('ci@example.com', [
      { kind: 'gates', id: 'a', file: 'gates/a.yaml', state: 'in_sync', drift: null, pendingReview: null, lastApplied: { time: Date.UTC(2026, 10, 24, 9, 30), commit: 'abcdef0123456789', plan: 'p', reviewID: 'r1', by: 'ci@example.com' }, consoleOwns: ['isEnabled', 'rules[*].passPercentage'] },
      { kind: 'gates', id: 'bb', file: 'gates/bb.yaml', state: 'drifted', drift: { policy: 'detect', lastModifier: 'eve@example.com' }, pendingReview: { reviewID: 'r2', status: 'pending_webhook_validation', action: 'update', submitter: 'eve@example.com', createdTime: null, fromApply: false }, lastApplied: null, consoleOwns: [] },
    ]);
    expect(renderStatusText(report)).toBe(
      [
        'Status of flags against http://console (as ci@example.com): 1 in sync, 1 drifted, 1 pending review.',
        '',
        '  gates/a   in sync    applied commit abcdef012345 2026-11-24 09:30:00 UTC; the console owns isEnabled, rules[*].passPercentage',
        '  gates/bb  drifted    changed by eve@example.com (drift policy detect); review r2 pending webhook validation (update, by eve@example.com); never applied',
        '',
      ].join('\n'),
    );
  });

  it('names the apply running now, from its lock', () => {
    const report = reportOf('ci@example.com', [], [{ name: 'git@example.com:acme/flags.git@main', heldBy: 'ci@example.com', description: 'flagops apply on runner-3 (pid 42)', expiresTime: Date.UTC(2026, 10, 24, 9, 30) }]);
    expect(renderStatusText(report)).toBe(
      'Status of flags against http://console (as ci@example.com): 1 in sync, 1 drifted, 1 pending review.\napply lock: git@example.com:acme/flags.git@main held by ci@example.com (flagops apply on runner-3 (pid 42)), expires 2026-11-24 09:30:00 UTC unless renewed\nNo entities.\n',
    );
  });

  it("escapes control characters in what the console answered, so they cannot drive the terminal or forge a line", () => {
    const report = reportOf('ci\x1b]0;title\x07@example.com', [
      { kind: 'prompts', id: 'p\u202e', file: null, state: 'drifted', drift: { policy: 'detect', lastModifier: 'eve\x1b[8m' }, pendingReview: { reviewID: 'r\n  gates/x  in sync', status: 'pending', action: 'update', submitter: 'm\x07', createdTime: null, fromApply: false }, lastApplied: null, consoleOwns: [] },
    ]);
    const text = renderStatusText(report);
    expect(text).toContain('(as ci\\x1b]0;title\\x07@example.com)');
    expect(text).toContain('  prompts/p\\u202e  drifted    changed by eve\\x1b[8m (drift policy detect); review r\\x0a  gates/x  in sync pending (update, by m\\x07)');
    expect(text.split('\n')).toHaveLength(4);
  });
});
