import { AuthenticationError, InputError } from '../errors.js';
import { ConsoleClient, type ConsoleClientOptions, type Envelope, type JsonObject, type RequestOptions } from '../reconcile/console-client.js';
import { stringOption, type CliIO, type ParsedArgs } from './command.js';

export function intOption(args: ParsedArgs, name: string, min: number, max: number): number {
  const text = stringOption(args, name) ?? '';
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new InputError('Invalid option.', [{ property: `--${name}`, errorMessage: `must be an integer from ${min} to ${max}` }]);
  }
  return Number(text);
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Where a secret could appear in a log line: the key headers of a request (the console's own, the
 * pre-commit webhook's, an Authorization header) and secrets in a logged object. The console logs no
 * request headers or bodies; these paths keep a future log call from leaking one.
 */
export const LOG_REDACT_PATHS = [
  'req.headers["service-api-key"]',
  'req.headers["x-service-webhook-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["service-api-key"]',
  'headers["x-service-webhook-key"]',
  'headers.authorization',
  'req.body',
  'body',
  'secret',
  '*.secret',
  'webhookKey',
  '*.webhookKey',
];

export interface StderrLoggerOptions {
  level: string;
  stream: { write(line: string): void };
  redact: { paths: string[]; censor: string };
}

/**
 * Pino options that send the console's logs to stderr as JSON lines (stdout carries results only):
 * one line per request with reqId, keyId, method, route, status and responseTime; secrets redacted.
 */
export function stderrLogger(io: CliIO, level: string): StderrLoggerOptions {
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new InputError('Invalid option.', [{ property: '--log-level', errorMessage: `must be one of ${LOG_LEVELS.join(', ')}` }]);
  }
  return { level, stream: { write: (line: string) => io.stderr(line) }, redact: { paths: [...LOG_REDACT_PATHS], censor: '[redacted]' } };
}

/**
 * A console URL from `--console` (or flagops.yaml console.url when the flag is absent): http or https
 * only. `new URL('localhost:8080')` parses, as scheme `localhost:`, so parsing alone is no check.
 */
export function consoleUrlOf(flag: string | undefined, configured: string): string {
  const [value, source] = flag !== undefined ? [flag, '--console'] : [configured, 'flagops.yaml console.url'];
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new InputError(`${source} must be an http(s) URL such as http://localhost:8080.`, [
      { property: source, errorMessage: `'${value}' is not an http:// or https:// URL${/^[\w.-]+:\d+/.test(value) ? ` (did you mean 'http://${value}'?)` : ''}` },
    ]);
  }
  // Request paths are appended to it: a query or fragment would swallow them.
  if (url.search !== '' || url.hash !== '') {
    throw new InputError(`${source} must be an http(s) URL such as http://localhost:8080.`, [{ property: source, errorMessage: `'${value}' has a query or fragment; give the console's base URL alone` }]);
  }
  return value;
}

/** A key from the environment variable `name`, telling apart a variable that is not set from one that is empty. */
export function keyFromEnv(env: CliIO['env'], name: string, what: string, origin: string): string {
  const value = env[name];
  if (value === undefined) throw new InputError(`No ${what}: set ${name}.`, [{ property: name, errorMessage: `is not set (${origin})` }]);
  if (value.trim() === '') throw new InputError(`No ${what}: the environment variable ${name} is empty.`, [{ property: name, errorMessage: `is set but empty (${origin})` }]);
  return value;
}

/** A console client whose 401s name the variable the key came from: the first thing to check. */
export function consoleClientWithKeyFrom(keyEnv: string, options: ConsoleClientOptions): ConsoleClient {
  return new KeyNamingConsoleClient(keyEnv, options);
}

class KeyNamingConsoleClient extends ConsoleClient {
  constructor(
    private readonly keyEnv: string,
    options: ConsoleClientOptions,
  ) {
    super(options);
  }

  override async request<T = JsonObject>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<Envelope<T>> {
    try {
      return await super.request<T>(method, path, body, options);
    } catch (error) {
      if (error instanceof AuthenticationError) throw new AuthenticationError(`the console rejected the key in ${this.keyEnv} (401): ${error.message}`);
      throw error;
    }
  }
}
