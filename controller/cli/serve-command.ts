import { assertBootstrapKey, readEnvConfig } from '../config.js';
import { createConsole, isPostgresUrl } from '../compose.js';
import { InputError } from '../errors.js';
import { DEFAULT_DURABILITY, DURABILITY_MODES, type Durability } from '../store/sqlite/open-sqlite-store.js';
import { stringOption, type Command } from './command.js';
import { intOption, stderrLogger } from './cli-helpers.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the console HTTP API on SQLite (the default) or PostgreSQL',
  usage: `Usage: flagops serve [--host 127.0.0.1] [--port 8080] [--db PATH|:memory:|postgres://URL] [--public-url URL]
                     [--webhook-timeout MS] [--rate-limit N] [--auth-failures-per-minute 30]
                     [--durability normal|full] [--log-level warn] [--cors-origin ORIGIN[,ORIGIN...]]

  With an empty database and FLAGOPS_BOOTSTRAP_KEY set (at least 20 characters), creates an admin key with that value;
  with neither keys nor the variable, generates an admin key and prints it once (to stderr).
  Prints "flagops console listening on http://HOST:PORT" to stdout when ready. --port 0 picks a free port.
  --db defaults to $FLAGOPS_DB_URL, else ./.flagops/console.db. A postgres:// URL runs the console on
  PostgreSQL: any number of replicas may serve one database (behind a load balancer) and behave as
  one console; each replica migrates the schema at start (under a lock) and refuses a newer one.
  SIGTERM or SIGINT: stops taking requests, finishes those in flight, hands its webhook deliveries
  to the other replicas, then exits. GET /healthz (up), /readyz (database reachable) and /metrics
  (Prometheus) need no key.
  --rate-limit N allows each key N requests per second (bursts of 2N), answering 429 with Retry-After
  above, per replica (behind a load balancer of R replicas a key gets up to R times N); 0 (the
  default) turns it off.
  --auth-failures-per-minute N: a client address that sends more than N wrong keys in a minute gets
  429 with Retry-After for every request until that minute ends (logged once per minute); 0 turns it
  off. Default 30.
  --cors-origin lets browser pages from these origins (https://app.example.com, or * for any) call
  the OpenFeature evaluation API (/ofrep/v1) with a CLIENT key; SERVER keys never get CORS headers.
  --durability says what an acknowledged write survives. normal (the default): WAL with
  synchronous=NORMAL; a crash of the process loses nothing, but an OS crash or power loss may roll
  back the writes acknowledged since the last WAL sync (the console checkpoints once a second); the
  database stays consistent. full: synchronous=FULL, every commit is fsynced before it is
  acknowledged, at the cost of write throughput. On PostgreSQL: normal sets synchronous_commit=off
  for the console's connections (a crash of the PostgreSQL server may lose the writes acknowledged
  in its last ~0.6 s; a crash of a replica loses nothing), full sets it on.`,
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8080' },
    db: { type: 'string' },
    'public-url': { type: 'string' },
    'webhook-timeout': { type: 'string', default: '120000' },
    'log-level': { type: 'string', default: 'warn' },
    'rate-limit': { type: 'string', default: '0' },
    'auth-failures-per-minute': { type: 'string', default: '30' },
    durability: { type: 'string', default: DEFAULT_DURABILITY },
    'cors-origin': { type: 'string' },
  },
  async run(args, io) {
    const port = intOption(args, 'port', 0, 65535);
    const webhookTimeoutMs = intOption(args, 'webhook-timeout', 1, 24 * 3600 * 1000);
    const host = stringOption(args, 'host') ?? '127.0.0.1';
    const level = stringOption(args, 'log-level') ?? 'warn';
    if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) {
      throw new InputError('Invalid option.', [{ property: '--log-level', errorMessage: 'must be one of fatal, error, warn, info, debug, trace, silent' }]);
    }
    const durability = stringOption(args, 'durability') ?? DEFAULT_DURABILITY;
    if (!isDurability(durability)) {
      throw new InputError('Invalid option.', [{ property: '--durability', errorMessage: `must be one of ${DURABILITY_MODES.join(', ')}` }]);
    }
    const corsOrigins = corsOriginsOption(stringOption(args, 'cors-origin'));
    const env = readEnvConfig(io.env);
    assertBootstrapKey(env.bootstrapKey);
    const db = stringOption(args, 'db') ?? env.dbUrl ?? './.flagops/console.db';
    const instance = createConsole({
      db,
      publicUrl: stringOption(args, 'public-url'),
      bootstrapKey: env.bootstrapKey,
      webhookTimeoutMs,
      rateLimitPerSecond: intOption(args, 'rate-limit', 0, 1_000_000),
      failedAuthPerMinute: intOption(args, 'auth-failures-per-minute', 0, 1_000_000),
      durability,
      corsOrigins,
      logger: stderrLogger(io, level),
    });
    await instance.app.ready();
    if (instance.bootstrap.generated && instance.bootstrap.secret) {
      io.stderr(`Created admin key for admin@localhost (shown once, keep it safe):\n  ${instance.bootstrap.secret}\n`);
    }
    const address = await instance.app.listen({ host, port });
    const url = new URL(address);
    const shown = `http://${host.includes(':') ? `[${host}]` : host}:${url.port}`;
    instance.setPublicUrl(shown);
    io.stdout(`flagops console listening on ${shown}\n`);
    if (!instance.bootstrap.created) {
      io.stderr(`Need a key? flagops keys create --db ${isPostgresUrl(db) ? "'<the same postgres:// URL>'" : db} --email you@example.com --role admin\n`);
    }
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve();
      io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    io.stderr('flagops: shutting down\n');
    await instance.close();
    return 0;
  },
};

const isDurability = (value: string): value is Durability => (DURABILITY_MODES as readonly string[]).includes(value);

/** `--cors-origin`: a comma-separated list of origins (scheme://host[:port]), or `*`. */
function corsOriginsOption(value: string | undefined): string[] {
  if (value === undefined) return [];
  const origins = value.split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new InputError('Invalid option.', [{ property: '--cors-origin', errorMessage: `${origin} is not an origin (scheme://host[:port], no path), nor *` }]);
    }
  }
  return origins;
}
