/**
 * In-process wake-ups for review long polls (`GET /reviews/{id}?waitWhile=`): whoever writes a review
 * record calls `changed(id)`; waiters on that id wake and re-read it.
 *
 * `changed` is called inside the store transaction that writes the review, so the wake-up is deferred
 * with `setImmediate`: transactions are synchronous, so by then the write has committed (or rolled
 * back, in which case the waiter re-reads the same status and waits again). Nothing here is a source
 * of truth: waiters also re-read on a slower timer, which covers what no notification announces
 * (a review turning stale because its entity changed, writes by another process on the same database).
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
