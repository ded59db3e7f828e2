import { describe, expect, it } from 'vitest';
import { ReviewChanges } from './review-changes.js';

const settled = (p: Promise<void>): Promise<boolean> => Promise.race([p.then(() => true), new Promise<boolean>((r) => setImmediate(() => setImmediate(() => r(false))))]);

describe('ReviewChanges', () => {
  it('wakes the waiters of a review after the current synchronous code (the transaction) is done', async () => {
    const changes = new ReviewChanges();
    const a = changes.next('rev_a', 60_000);
    const b = changes.next('rev_a', 60_000);
    const other = changes.next('rev_b', 60_000);
    let woken = false;
    void a.then(() => (woken = true));
    changes.changed('rev_a');
    await Promise.resolve();
    expect(woken).toBe(false);
    expect(await settled(a)).toBe(true);
    expect(await settled(b)).toBe(true);
    expect(await settled(other)).toBe(false);
    expect(changes.watched()).toBe(1);
    changes.changed('rev_b');
    expect(await settled(other)).toBe(true);
    expect(changes.watched()).toBe(0);
  });

  it('resolves after the timeout without a change and forgets the waiter', async () => {
    const changes = new ReviewChanges();
    await changes.next('rev_a', 5);
    expect(changes.watched()).toBe(0);
  });

  it('ignores changes of reviews nobody waits on', async () => {
    const changes = new ReviewChanges();
    changes.changed('rev_a');
    const later = changes.next('rev_a', 60_000);
    expect(await settled(later)).toBe(false);
    changes.changed('rev_a');
    expect(await settled(later)).toBe(true);
  });

  it('wakes every waiter of every review at once when the console closes', async () => {
    const changes = new ReviewChanges();
    const waits = [changes.next('rev_a', 60_000), changes.next('rev_a', 60_000), changes.next('rev_b', 60_000)];
    changes.wakeAll();
    for (const wait of waits) expect(await settled(wait)).toBe(true);
    expect(changes.watched()).toBe(0);
  });
});
