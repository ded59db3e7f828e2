import { createGunzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InputError } from '../../errors.js';
import type { CompiledSpecs, ConfigSpecsService } from '../config-specs-service.js';
import { SPECS_CACHE_CONTROL, SPECS_GET_ROUTE, SPECS_JSON_TYPE, sinceTimeOf, specsReply } from './statsig-specs-reply.js';
import type { ConsoleMetrics } from '../http/console-metrics.js';
import type { SdkKeyAuth } from '../sdk-key-auth.js';

export interface StatsigSdkRouteDeps {
  keys: SdkKeyAuth;
  specs: ConfigSpecsService;
  metrics: ConsoleMetrics;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Largest `log_event` body once decompressed: the SDK flushes up to 1,000 events at once. */
const LOG_EVENT_BODY_LIMIT = 8 * 1024 * 1024;

/** The header the Statsig SDKs send their key in on POST requests. */
const KEY_HEADER = 'statsig-api-key';

const headerOf = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The Statsig kind of an SDK event, as counted in `flagops_sdk_events_total`. */
function eventKind(name: unknown): string {
  switch (name) {
    case 'statsig::gate_exposure':
      return 'gate_exposure';
    case 'statsig::config_exposure':
      return 'config_exposure';
    case 'statsig::layer_exposure':
      return 'layer_exposure';
    default:
      return typeof name === 'string' && name.startsWith('statsig::') ? 'sdk_internal' : 'custom';
  }
}

/**
 * What the Statsig server SDKs call, so an unmodified `statsig-node` (or another server SDK) works
 * against the console with `api: "<console>/v1"`:
 * - `GET /v1/download_config_specs/{SERVER key}.json[?sinceTime=N]` (and the older
 *   `POST /v1/download_config_specs` with the key in `STATSIG-API-KEY`): the compiled specs, or
 *   `{ has_updates: false }` when nothing changed since `sinceTime`;
 * - `POST /v1/get_id_lists`: the id lists the SDK should fetch; segments are compiled into the
 *   specs, so there are none;
 * - `POST /v1/log_event`: events accepted (gzip or plain JSON) and counted, never stored.
 * Outside /console/v1, so the Console API's key check doesn't apply: each route checks its SDK key.
 */
export function registerStatsigSdkRoutes(app: FastifyInstance, deps: StatsigSdkRouteDeps): void {
  const send = (reply: FastifyReply, compiled: CompiledSpecs, sinceTime: number | undefined): void => {
    const answer = specsReply(compiled, sinceTime);
    void reply.header('cache-control', SPECS_CACHE_CONTROL).type(SPECS_JSON_TYPE);
    if (answer.serverTiming !== undefined) void reply.header('server-timing', answer.serverTiming);
    void reply.send(answer.body);
  };
  const sendSpecs = async (reply: FastifyReply, secret: string | undefined, sinceTime: number | undefined): Promise<void> => {
    const key = await deps.keys.authenticate(secret, ['SERVER']);
    // Authenticating refreshed the store's change marks: one round trip to a shared database, not two.
    send(reply, await deps.specs.specsFor(key, true), sinceTime);
  };

  app.get(SPECS_GET_ROUTE, (request, reply): Promise<void> | undefined => {
    const { file } = request.params as { file: string };
    const secret = file.endsWith('.json') ? file.slice(0, -'.json'.length) : file;
    const query = (request.query as Record<string, unknown>)['sinceTime'];
    const sinceTime = sinceTimeOf(Array.isArray(query) ? query[0] : query, 'sinceTime query parameter');
    // An SDK polling specs that haven't changed (nearly every request) is answered without a promise.
    const key = deps.keys.cached(secret, ['SERVER']);
    const compiled = key && deps.specs.cached(key);
    if (compiled) {
      send(reply, compiled, sinceTime);
      return undefined;
    }
    return sendSpecs(reply, secret, sinceTime);
  });

  app.post('/v1/download_config_specs', async (request, reply) => {
    const body = request.body;
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw new InputError('Invalid body.', [{ property: '(body)', errorMessage: 'must be a JSON object' }]);
    }
    await sendSpecs(reply, headerOf(request, KEY_HEADER), sinceTimeOf((body as Record<string, unknown> | undefined)?.['sinceTime'], 'sinceTime'));
  });

  app.post('/v1/get_id_lists', async (request, reply) => {
    await deps.keys.authenticate(headerOf(request, KEY_HEADER), ['SERVER']);
    void reply.header('cache-control', 'no-store').type(JSON_TYPE).send('{}');
  });

  app.route({
    method: 'POST',
    url: '/v1/log_event',
    bodyLimit: LOG_EVENT_BODY_LIMIT,
    // The SDK gzips its batches (Content-Encoding: gzip); the limit counts the decompressed bytes.
    preParsing: (request, _reply, payload, done) => {
      const encoding = headerOf(request, 'content-encoding')?.toLowerCase();
      if (encoding === undefined || encoding === 'identity') return done(null, payload);
      if (encoding !== 'gzip') return done(new InputError('Unsupported content encoding.', [{ property: 'content-encoding', errorMessage: 'must be gzip or identity' }]));
      // Fastify compares Content-Length with the bytes received, which the decompressed stream reports here.
      const gunzip = Object.assign(createGunzip(), { receivedEncodedLength: 0 });
      payload.on('data', (chunk: Buffer) => {
        gunzip.receivedEncodedLength += chunk.length;
      });
      gunzip.on('error', () => gunzip.destroy(new InputError('Malformed gzip body.', [{ property: '(body)', errorMessage: 'is not valid gzip' }])));
      done(null, payload.pipe(gunzip));
    },
    handler: async (request, reply) => {
      await deps.keys.authenticate(headerOf(request, KEY_HEADER), ['SERVER', 'CLIENT']);
      const body = request.body as Record<string, unknown> | undefined;
      const events = body?.['events'];
      if (typeof body !== 'object' || body === null || !Array.isArray(events)) {
        throw new InputError('Invalid log_event body.', [{ property: 'events', errorMessage: 'must be an array of events' }]);
      }
      const counts = new Map<string, number>();
      for (const event of events) {
        const kind = eventKind(typeof event === 'object' && event !== null ? (event as Record<string, unknown>)['eventName'] : undefined);
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
      }
      for (const [kind, count] of counts) deps.metrics.sdkEvents(kind, count);
      void reply.status(202).type(JSON_TYPE).send('{"success":true}');
    },
  });
}
