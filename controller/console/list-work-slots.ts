/**
 * Slots for the costly part of list requests (filtering a whole kind, building up to 1,000 answers):
 * at most `size` such lists are worked on at once in this process, the others wait their turn
 * (costing nothing meanwhile), and each filters in slices that give the event loop back between them.
 * So a burst of heavy lists, from one key or many, takes its time, and a plain read arriving meanwhile
 * waits for a slice or two, not for all of them.
 */
export class ListWorkSlots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size = 1) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy--;
    }
  }
}

/** Gives the event loop back: I/O and other requests run before the work goes on. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Entities filtered per slice: a slice takes well under a millisecond. */
export const FILTER_SLICE = 2000;

/** The process's list slots, shared by every kind. */
export const LIST_WORK = new ListWorkSlots(1);
