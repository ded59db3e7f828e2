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

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.target().level = level;
  }

  // The log methods, one forwarder each on the prototype (installed below): nothing made per request.
  declare fatal: FastifyBaseLogger['fatal'];
  declare error: FastifyBaseLogger['error'];
  declare warn: FastifyBaseLogger['warn'];
  declare info: FastifyBaseLogger['info'];
  declare debug: FastifyBaseLogger['debug'];
  declare trace: FastifyBaseLogger['trace'];
  declare silent: FastifyBaseLogger['silent'];

  /** The real child, made on first use: what every method logs through. */
  target(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.target().child(bindings, options);
  }
}

const METHODS: readonly Method[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
for (const method of METHODS) {
  Object.defineProperty(DeferredChildLogger.prototype, method, {
    value: function (this: DeferredChildLogger, ...args: unknown[]): void {
      const logger = this.target();
      (logger[method] as (...args: unknown[]) => void).apply(logger, args);
    },
    writable: true,
    configurable: true,
  });
}

/** Fastify's `childLoggerFactory`: per-request loggers made on first use. */
export const deferredChildLoggers: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => new DeferredChildLogger(logger, bindings, options);
