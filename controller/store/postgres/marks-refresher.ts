import type { ChangeMarks } from '../ports.js';

/**
 * Keeps the latest change marks read from a shared database, with round trips shared by concurrent
 * callers. A caller's refresh must reflect every write acknowledged before it began, so it is served
 * only by a query sent after it began: at most one query is in flight, and callers arriving while one
 * is all wait for the next, which is sent when the current one ends and serves all of them.
 */
export class MarksRefresher {
  private current: ChangeMarks | undefined;
  private inFlight: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private sent = 0;
  private applied = 0;

  constructor(private readonly read: () => Promise<ChangeMarks>) {}

  /** The marks of the latest query that answered, or undefined before the first one did. */
  marks(): ChangeMarks | undefined {
    return this.current;
  }

  refresh(): Promise<void> {
    if (this.next) return this.next;
    if (!this.inFlight) return (this.inFlight = this.send());
    const after = (): Promise<void> => {
      this.next = undefined;
      return (this.inFlight = this.send());
    };
    return (this.next = this.inFlight.then(after, after));
  }

  private send(): Promise<void> {
    const order = ++this.sent;
    const query: Promise<void> = this.read()
      .then((marks) => {
        // Queries are sent one at a time, so answers arrive in order; the check keeps an older
        // answer from ever replacing a newer one all the same.
        if (order > this.applied) {
          this.applied = order;
          this.current = marks;
        }
      })
      .finally(() => {
        if (this.inFlight === query) this.inFlight = undefined;
      });
    return query;
  }
}
