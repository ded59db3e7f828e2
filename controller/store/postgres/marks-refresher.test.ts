import { describe, expect, it } from 'vitest';
import type { ChangeMarks } from '../ports.js';
import { MarksRefresher } from './marks-refresher.js';

/** A read whose answers the test releases one by one, recording when each query was sent. */
function controlledRead() {
  const pending: { resolve: (marks: ChangeMarks) => void; reject: (error: Error) => void }[] = [];
  let sent = 0;
  const read = () => {
    sent++;
    return new Promise<ChangeMarks>((resolve, reject) => pending.push({ resolve, reject }));
  };
  const marks = (n: number): ChangeMarks => ({ data: `d${n}`, settings: `s${n}`, auth: `a${n}` });
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { read, marks, settle, pending, sent: () => sent };
}

/** Sent at once, one query at a time. */
const ONE_AT_A_TIME = { maxInFlight: 1, schedule: (send: () => void) => send() };

describe('MarksRefresher', () => {
  it('has no marks before the first answer', async () => {
    const c = controlledRead();
    const refresher = new MarksRefresher(c.read, ONE_AT_A_TIME);
    expect(refresher.marks()).toBeUndefined();
    const done = refresher.refresh();
    expect(refresher.marks()).toBeUndefined();
    c.pending[0]!.resolve(c.marks(1));
    await done;
    expect(refresher.marks()).toEqual(c.marks(1));
  });

  it('keeps one query in flight: callers arriving meanwhile share the next one, sent when it ends', async () => {
    const c = controlledRead();
    const refresher = new MarksRefresher(c.read, ONE_AT_A_TIME);
    const resolved: string[] = [];
    const first = refresher.refresh().then(() => resolved.push('first'));
    const second = refresher.refresh().then(() => resolved.push('second'));
    const third = refresher.refresh().then(() => resolved.push('third'));
    expect(c.sent()).toBe(1);
    c.pending[0]!.resolve(c.marks(1));
    await first;
    await c.settle();
    // The callers that came while query 1 was in flight may have missed a write committed after it
    // was sent: they wait for query 2.
    expect(resolved).toEqual(['first']);
    expect(c.sent()).toBe(2);
    expect(refresher.marks()).toEqual(c.marks(1));
    const fourth = refresher.refresh().then(() => resolved.push('fourth'));
    c.pending[1]!.resolve(c.marks(2));
    await Promise.all([second, third]);
    await c.settle();
    expect(resolved).toEqual(['first', 'second', 'third']);
    expect(refresher.marks()).toEqual(c.marks(2));
    expect(c.sent()).toBe(3);
    c.pending[2]!.resolve(c.marks(3));
    await fourth;
    expect(refresher.marks()).toEqual(c.marks(3));
    expect(c.sent()).toBe(3);
  });

  it('a failed query rejects its callers, keeps the last marks, and the waiting callers still get their own query', async () => {
    const c = controlledRead();
    const refresher = new MarksRefresher(c.read, ONE_AT_A_TIME);
    const first = refresher.refresh();
    c.pending[0]!.resolve(c.marks(1));
    await first;
    const failing = refresher.refresh();
    const waiting = refresher.refresh();
    c.pending[1]!.reject(new Error('connection lost'));
    await expect(failing).rejects.toThrow('connection lost');
    expect(refresher.marks()).toEqual(c.marks(1));
    await c.settle();
    expect(c.sent()).toBe(3);
    c.pending[2]!.resolve(c.marks(3));
    await waiting;
    expect(refresher.marks()).toEqual(c.marks(3));
  });

  it('sends a batch without waiting for the query in flight; callers before the send share it', async () => {
    const c = controlledRead();
    const sends: (() => void)[] = [];
    const refresher = new MarksRefresher(c.read, { maxInFlight: 2, schedule: (send) => sends.push(send) });
    const resolved: string[] = [];
    const first = refresher.refresh().then(() => resolved.push('first'));
    const alsoFirst = refresher.refresh().then(() => resolved.push('alsoFirst'));
    expect(c.sent()).toBe(0);
    sends.shift()!();
    expect(c.sent()).toBe(1);
    // Arrived after query 1 was sent: a query of its own, sent while query 1 is still in flight.
    const second = refresher.refresh().then(() => resolved.push('second'));
    sends.shift()!();
    expect(c.sent()).toBe(2);
    // Query 2 answers first; query 1's older answer must not replace its marks.
    c.pending[1]!.resolve(c.marks(2));
    await second;
    expect(resolved).toEqual(['second']);
    c.pending[0]!.resolve(c.marks(1));
    await Promise.all([first, alsoFirst]);
    expect(resolved).toEqual(['second', 'first', 'alsoFirst']);
    expect(refresher.marks()).toEqual(c.marks(2));
  });

  it('holds a batch while every slot is taken and sends it as soon as one frees', async () => {
    const c = controlledRead();
    const refresher = new MarksRefresher(c.read, { maxInFlight: 2, schedule: (send) => send() });
    const one = refresher.refresh();
    const two = refresher.refresh();
    expect(c.sent()).toBe(2);
    const three = refresher.refresh();
    const alsoThree = refresher.refresh();
    expect(c.sent()).toBe(2);
    c.pending[0]!.resolve(c.marks(1));
    await one;
    expect(c.sent()).toBe(3);
    c.pending[1]!.resolve(c.marks(2));
    c.pending[2]!.resolve(c.marks(3));
    await Promise.all([two, three, alsoThree]);
    expect(refresher.marks()).toEqual(c.marks(3));
  });
});
