/** What a fast path answers when it cannot vouch for its result: the general code then decides. */
export const UNSURE: unique symbol = Symbol('unsure');
