import type { FastifyReply, FastifyRequest } from 'fastify';

/** Most bytes of a refused body read and dropped so its sender can read the 413; beyond, the connection closes. */
export const DRAINED_BYTES_MAX = 32 * 1024 * 1024;
/** Longest a refused body may take to finish arriving before the connection closes. */
export const DRAIN_MS = 10_000;

/**
 * Fastify answers a body over the limit with 413 and `connection: close`, and Node then closes the
 * socket while the client is still sending: the client's next write meets a reset, and clients that
 * write the whole body before they read (fetch, most SDKs) report a broken pipe instead of the 413.
 * So the rest of the body is read and dropped, and the connection kept, as servers' lingering close
 * does, but within bounds: a body declared larger than DRAINED_BYTES_MAX still gets the immediate
 * close, and one that outgrows that many bytes or DRAIN_MS closes the connection then.
 */
export function readRestOfRefusedBody(request: FastifyRequest, reply: FastifyReply, limits = { bytes: DRAINED_BYTES_MAX, ms: DRAIN_MS }): void {
  const raw = request.raw;
  const declared = request.headers['content-length'];
  if (declared !== undefined && !(Number(declared) <= limits.bytes)) return;
  if (raw.complete || raw.destroyed) return;
  const socket = raw.socket as typeof raw.socket | null;
  // Requests injected in tests have no socket to keep.
  if (socket === null || typeof socket.destroy !== 'function') return;
  void reply.removeHeader('connection');
  let read = 0;
  const close = (): void => {
    cleanUp();
    socket.destroy();
  };
  const timer = setTimeout(close, limits.ms);
  const onData = (chunk: Buffer): void => {
    read += chunk.length;
    if (read > limits.bytes) close();
  };
  const cleanUp = (): void => {
    clearTimeout(timer);
    raw.removeListener('data', onData);
    raw.removeListener('end', cleanUp);
    raw.removeListener('close', cleanUp);
  };
  raw.on('data', onData);
  raw.once('end', cleanUp);
  raw.once('close', cleanUp);
  raw.resume();
}
