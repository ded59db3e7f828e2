import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * A request's logger (bound to its request id) that makes the real child only when something logs
 * through it. Fastify asks for one per request; at the default level (warn) nearly none ever logs, and
 * pino's child serialises its bindings when made, a cost every request paid for nothing.
 */
export class DeferredChildLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  private call(method: Method, args: unknown[]): void {
    const logger = this.logger;
    (logger[method] as (...args: unknown[]) => void).apply(logger, args);
  }

  fatal(...args: unknown[]): void {
    this.call('fatal', args);
  }

  error(...args: unknown[]): void {
    this.call('error', args);
  }

  warn(...args: unknown[]): void {
    this.call('warn', args);
  }

  info(...args: unknown[]): void {
    this.call('info', args);
  }

  debug(...args: unknown[]): void {
    this.call('debug', args);
  }

  trace(...args: unknown[]): void {
    this.call('trace', args);
  }

  silent(...args: unknown[]): void {
    this.call('silent', args);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: per-request loggers made on first use. */
export const deferredChildLoggers: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => new DeferredChildLogger(logger, bindings, options);
