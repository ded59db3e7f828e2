import type { ChangeMarks } from '../ports.js';

export interface MarksRefresherOptions {
  /** Queries answering at once at most (each on a pooled connection). */
  maxInFlight?: number;
  /**
   * When a new query is sent: callers that arrive before then share it. setImmediate by default, so
   * every request read in one turn of the event loop shares one query.
   */
  schedule?: (send: () => void) => void;
}

interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function batch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Keeps the latest change marks read from a shared database, with round trips shared by concurrent
 * callers. A caller's refresh must reflect every write acknowledged before it began, so it is served
 * only by a query sent after it began: callers join the batch that has not been sent yet, or open one.
 * Batches go out without waiting for the queries in flight (up to `maxInFlight`): a request waits one
 * round trip, not the rest of an earlier one as well — on a busy replica the wait, not the CPU, is
 * what bounds the reads a few connections can make.
 */
export class MarksRefresher {
  private current: ChangeMarks | undefined;
  /** The batch callers join: not sent yet. */
  private open: Batch | undefined;
  private scheduled = false;
  private inFlight = 0;
  private sent = 0;
  private applied = 0;
  private readonly maxInFlight: number;
  private readonly schedule: (send: () => void) => void;

  constructor(
    private readonly read: () => Promise<ChangeMarks>,
    options: MarksRefresherOptions = {},
  ) {
    this.maxInFlight = options.maxInFlight ?? 4;
    this.schedule = options.schedule ?? ((send) => setImmediate(send));
  }

  /** The marks of the newest query that answered, or undefined before the first one did. */
  marks(): ChangeMarks | undefined {
    return this.current;
  }

  refresh(): Promise<void> {
    if (this.open) return this.open.promise;
    const opened = batch();
    this.open = opened;
    if (this.inFlight < this.maxInFlight) {
      this.scheduled = true;
      this.schedule(() => {
        this.scheduled = false;
        this.send();
      });
    }
    return opened.promise;
  }

  private send(): void {
    const waiting = this.open;
    if (waiting === undefined || this.inFlight >= this.maxInFlight) return;
    this.open = undefined;
    this.inFlight++;
    const order = ++this.sent;
    const settled = (): void => {
      this.inFlight--;
      // A batch that found every slot taken goes out now.
      if (this.open && !this.scheduled) this.send();
    };
    this.read().then(
      (marks) => {
        // Answers may come back out of order (several connections): an older one never replaces a newer.
        if (order > this.applied) {
          this.applied = order;
          this.current = marks;
        }
        settled();
        waiting.resolve();
      },
      (error: unknown) => {
        settled();
        waiting.reject(error);
      },
    );
  }
}
