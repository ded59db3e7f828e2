import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** What a fast lane gets from the console around it, so its answers carry what Fastify's do. */
export interface FastLaneKit {
  /** The request's id from its `x-request-id` header, by the generator Fastify uses (sent back as `x-request-id`). */
  requestId(header: string | string[] | undefined): string;
  /** Counts an answered request in `/metrics` and logs it, as the console's onResponse hook does. */
  answered(requestId: string, method: string, route: string, status: number, startedAt: number): void;
  /** An unexpected error, answered 500 by the lane: logged and counted as the error handler does. */
  failed(requestId: string, error: unknown): void;
}

/** Requests a lane answered, for tests and benchmarks to see which path a request took. */
export interface FastLaneCounter {
  served: number;
}

/**
 * A route served by plain Node.js beside Fastify, for the requests applications send many times a
 * second (an SDK polling its specs, an OFREP evaluation). It takes a request only when it can answer
 * it wholly (returns true) and leaves everything else to Fastify's route of the same path (returns
 * false, having read nothing): a new or unknown key, a CORS request, an unusual header. Both answer
 * with the same functions, so status, body and headers are the same whichever path a request takes.
 */
export type FastLane = (request: IncomingMessage, response: ServerResponse, kit: FastLaneKit) => boolean;

/**
 * Puts `lanes` in front of Fastify's request handler on `server`. While the console drains
 * (`closing`), every request goes to Fastify, which turns new ones away in the API's envelope. A lane
 * that throws before answering hands the request to Fastify too, whose route then answers it (or its
 * error) as it would have anyway.
 */
export function installFastLanes(server: Server, lanes: readonly FastLane[], kit: FastLaneKit, closing: () => boolean): void {
  if (lanes.length === 0) return;
  const handlers = server.listeners('request') as Array<(request: IncomingMessage, response: ServerResponse) => void>;
  const fastify = handlers[0];
  if (handlers.length !== 1 || fastify === undefined) throw new Error(`Fast lanes expect one request handler on the server, found ${handlers.length}.`);
  server.removeListener('request', fastify);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!closing()) {
      for (const lane of lanes) {
        try {
          if (lane(request, response, kit)) return;
        } catch {
          // A lane reads and writes only once it has taken the request: unless it answered, Fastify can.
          if (response.headersSent) return;
          break;
        }
      }
    }
    fastify(request, response);
  });
}
