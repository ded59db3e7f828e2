import { UnavailableError } from '../../errors.js';

/** Node socket errors that mean the server could not be reached or the connection died. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server going away or not accepting connections yet: class 08 (connection exception),
 * admin/crash shutdown and "the database system is starting up / shutting down", too many connections.
 */
const SERVER_CODES = /^(08...|57P0[1-4]|53300)$/;

/** node-postgres's (and our own connections') messages for a connection that dropped or never came. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'The connection to PostgreSQL was closed',
  'Query read timeout',
];

/**
 * Whether a failure is the database being unreachable (a restart, a failover, a network cut) rather
 * than something wrong with the statement: the same request can succeed once it is back.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof UnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.test(code))) return true;
  if (DRIVER_MESSAGES.some((text) => error.message.startsWith(text))) return true;
  if (error instanceof AggregateError && error.errors.some(isConnectionFailure)) return true;
  // A repository's own error about a statement that could not run (a deferred write) carries it as its cause.
  return error.cause !== undefined && error.cause !== error && isConnectionFailure(error.cause);
}

/** A connection failure as the 503 a client may retry; any other error as it is. */
export function unavailableOr(error: unknown): unknown {
  if (error instanceof UnavailableError || !isConnectionFailure(error)) return error;
  return new UnavailableError(`The database is not available (${(error as Error).message}); retry the request.`, { cause: error });
}

/** Runs `run`, turning a connection failure into an UnavailableError. */
export async function orUnavailable<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw unavailableOr(error);
  }
}

/**
 * What a log line says about a database error: its message and codes. Never the error object itself:
 * a driver's error may reference its client, and through it the connection settings and statements.
 */
export function describeDbError(error: unknown): { message: string; code?: string; severity?: string } {
  if (!(error instanceof Error)) return { message: String(error).slice(0, 500) };
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return {
    message: error.message.slice(0, 500),
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof severity === 'string' ? { severity } : {}),
  };
}
