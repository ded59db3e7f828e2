import { describe, expect, it } from 'vitest';
import { ListWorkSlots, yieldToEventLoop } from './list-work-slots.js';
import { createTestConsole } from '../test-support/test-console.js';

describe('ListWorkSlots', () => {
  it('works on at most `size` lists at once, the others in arrival order, and frees the slot on failure', async () => {
    const slots = new ListWorkSlots(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const job = (i: number, fail = false) =>
      slots.run(async () => {
        running++;
        most = Math.max(most, running);
        await yieldToEventLoop();
        await yieldToEventLoop();
        running--;
        order.push(i);
        if (fail) throw new Error(`job ${i} failed`);
        return i;
      });
    const results = await Promise.allSettled([job(1), job(2, true), job(3), job(4), job(5)]);
    expect(most).toBe(2);
    expect(order).toEqual([1, 2, 3, 4, 5]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  });
});

describe('a filtered list', () => {
  it('gives the event loop back while it filters a large kind: a read sent after it is answered before it ends', async () => {
    const c = createTestConsole();
    try {
      await c.app.ready();
      // One gate through the API, stored 6,000 times under other ids (as fast as a test may).
      expect((await c.call('POST', '/console/v1/gates', { id: 'template', name: 'template' })).statusCode).toBe(201);
      const template = (await c.store.entities.get('gate', 'template'))!;
      await c.store.transaction(async (tx) => {
        await tx.entities.delete('gate', 'template');
        for (let i = 0; i < 6000; i++) {
          const id = `gate_${i}`;
          await tx.entities.insert({ ...template, id, data: { ...template.data, id, name: id, tags: i % 3 === 0 ? ['big'] : [] } });
        }
      });
      const done: string[] = [];
      const list = c.call('GET', '/console/v1/gates?limit=1000&tags=big').then((r) => (done.push('list'), r));
      const read = c.call('GET', '/console/v1/gates/gate_1').then((r) => (done.push('read'), r));
      const [listed, single] = await Promise.all([list, read]);
      expect(done).toEqual(['read', 'list']);
      expect(single.statusCode).toBe(200);
      expect(listed.json().pagination.totalItems).toBe(2000);
      expect(listed.json().data).toHaveLength(1000);
      expect(listed.json().data[1].id).toBe('gate_3');
    } finally {
      await c.close();
    }
  });
});
