import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { DeferredChildLogger } from './deferred-child-logger.js';

const capture = (level: string) => {
  const lines: Record<string, unknown>[] = [];
  // Fastify's own pino instance, as the console gets it.
  const parent = Fastify({ logger: { level, stream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } } }).log;
  return { parent, lines };
};

describe('DeferredChildLogger', () => {
  it('makes no pino child until something logs through it', () => {
    const { parent } = capture('warn');
    const child = vi.spyOn(parent, 'child');
    const logger = new DeferredChildLogger(parent, { reqId: 'r-1' }, {});
    expect(logger.level).toBe('warn');
    logger.info('below the level');
    expect(child).toHaveBeenCalledTimes(1);
    logger.warn('again');
    expect(child).toHaveBeenCalledTimes(1);
    expect(new DeferredChildLogger(parent, { reqId: 'r-2' }, {}).level).toBe('warn');
    expect(child).toHaveBeenCalledTimes(1);
  });

  it('writes what the child would, with its bindings, objects and format arguments', () => {
    const { parent, lines } = capture('info');
    const logger = new DeferredChildLogger(parent, { reqId: 'r-1' }, {});
    logger.error({ status: 500 }, 'failed %s', 'hard');
    logger.info('plain');
    logger.debug('not written');
    logger.child({ keyId: 'k' }).warn('nested');
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, reqId: 'r-1', status: 500, msg: 'failed hard' }),
      expect.objectContaining({ level: 30, reqId: 'r-1', msg: 'plain' }),
      expect.objectContaining({ level: 40, reqId: 'r-1', keyId: 'k', msg: 'nested' }),
    ]);
  });

  it('has every log method, each writing at its own level', () => {
    const { parent, lines } = capture('trace');
    const logger = new DeferredChildLogger(parent, { reqId: 'r-1' }, {});
    for (const method of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) logger[method](method);
    expect(lines.map((l) => [l['level'], l['msg'], l['reqId']])).toEqual([
      [60, 'fatal', 'r-1'],
      [50, 'error', 'r-1'],
      [40, 'warn', 'r-1'],
      [30, 'info', 'r-1'],
      [20, 'debug', 'r-1'],
      [10, 'trace', 'r-1'],
    ]);
  });

  it('takes the level of its options, and a level set on it', () => {
    const { parent, lines } = capture('warn');
    const logger = new DeferredChildLogger(parent, { reqId: 'r-1' }, { level: 'debug' });
    expect(logger.level).toBe('debug');
    logger.debug('route level');
    logger.level = 'error';
    expect(logger.level).toBe('error');
    logger.warn('now below');
    expect(lines).toEqual([expect.objectContaining({ level: 20, reqId: 'r-1', msg: 'route level' })]);
    expect(parent.level).toBe('warn');
  });
});
