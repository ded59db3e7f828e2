import { describe, expect, it, vi } from 'vitest';
import { pinTickObjectMap } from './pin-tick-object-map.js';

describe('pinTickObjectMap', () => {
  it('pins nothing when the call queues no tick object', () => {
    expect(pinTickObjectMap(() => undefined)).toBe(false);
  });

  it("pins the tick object process.nextTick queues, once: later calls don't queue another", async () => {
    let ran = false;
    expect(pinTickObjectMap((callback) => process.nextTick(() => { ran = true; callback(); }))).toBe(true);
    const nextTick = vi.fn();
    expect(pinTickObjectMap(nextTick)).toBe(true);
    expect(nextTick).not.toHaveBeenCalled();
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toBe(true);
  });
});
