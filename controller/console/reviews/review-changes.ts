/**
 * Wake-ups for review long polls (`GET /reviews/{id}?waitWhile=`): whoever wrote a review record calls
 * `changed(id)` once the transaction has committed (the review service, the webhook dispatcher, and the
 * store's events for writes made by other replicas); waiters on that id wake and re-read it. Wake-ups
 * are batched with `setImmediate`. Nothing here is a source of truth: waiters also re-read on a slower
 * timer, which covers what no notification announces (a review turning stale because its entity
 * changed, a write by another process on the same SQLite file).
 */
export class ReviewChanges {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly pending = new Set<string>();
  private scheduled = false;

  /** A review record was written (or is being written in the current transaction). */
  changed(reviewId: string): void {
    if (!this.waiters.has(reviewId)) return;
    this.pending.add(reviewId);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Resolves on the next `changed(reviewId)` or after `ms`, whichever comes first. */
  next(reviewId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(reviewId);
      if (!set) this.waiters.set(reviewId, (set = new Set()));
      const waiters = set;
      const wake = (): void => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.waiters.get(reviewId) === waiters) this.waiters.delete(reviewId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiters.add(wake);
    });
  }

  /** Wakes every waiter of every review (the console is closing). */
  wakeAll(): void {
    for (const waiters of [...this.waiters.values()]) for (const wake of [...waiters]) wake();
  }

  /** Number of reviews someone is waiting on (for tests). */
  watched(): number {
    return this.waiters.size;
  }

  private flush(): void {
    this.scheduled = false;
    const ids = [...this.pending];
    this.pending.clear();
    for (const id of ids) for (const wake of [...(this.waiters.get(id) ?? [])]) wake();
  }
}
