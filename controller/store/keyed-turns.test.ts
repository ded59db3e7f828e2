import { describe, expect, it } from 'vitest';
import { KeyedTurns } from './keyed-turns.js';

describe('KeyedTurns', () => {
  it('gives one key to one holder at a time, in arrival order, and other keys at once', async () => {
    const turns = new KeyedTurns();
    const order: string[] = [];
    const first = await turns.take('a');
    const second = turns.take('a').then((end) => {
      order.push('second');
      return end;
    });
    const third = turns.take('a').then((end) => {
      order.push('third');
      end();
    });
    const other = await turns.take('b');
    order.push('other');
    await Promise.resolve();
    expect(order).toEqual(['other']);
    first();
    first(); // a second call ends nothing else
    const endSecond = await second;
    expect(order).toEqual(['other', 'second']);
    endSecond();
    await third;
    other();
    expect(order).toEqual(['other', 'second', 'third']);
    expect(turns.size).toBe(0);
  });
});
