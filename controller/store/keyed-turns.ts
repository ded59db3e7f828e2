/**
 * Turns per key, in arrival order: one holder per key at a time. A process's writers of one row queue
 * here instead of at the database, where each waiter holds a connection and is woken by every commit.
 */
export class KeyedTurns {
  private readonly tails = new Map<string, Promise<void>>();

  /** Resolves when it is the caller's turn, with the function that ends it (calling it again does nothing). */
  async take(key: string): Promise<() => void> {
    const before = this.tails.get(key);
    let end!: () => void;
    const mine = new Promise<void>((resolve) => {
      end = resolve;
    });
    const tail = before === undefined ? mine : before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      end();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }

  /** Keys someone holds or waits for (for tests). */
  get size(): number {
    return this.tails.size;
  }
}
