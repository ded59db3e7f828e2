import {
  AuthenticationError,
  ConflictError,
  InputError,
  NotAllowedError,
  NotFoundError,
  RateLimitedError,
  UnavailableError,
  UpstreamError,
  type DomainError,
  type FieldError,
} from './errors.js';

/** The one table from domain errors to HTTP statuses and CLI exit codes. */
const TABLE: ReadonlyArray<readonly [new (message: string) => DomainError, number, number]> = [
  [InputError, 400, 1],
  [AuthenticationError, 401, 1],
  [NotAllowedError, 403, 1],
  [NotFoundError, 404, 1],
  [ConflictError, 409, 1],
  [RateLimitedError, 429, 1],
  [UpstreamError, 502, 1],
  [UnavailableError, 503, 1],
];

export function httpStatusOf(error: unknown): number {
  for (const [type, status] of TABLE) if (error instanceof type) return status;
  return 500;
}

export function exitCodeOf(error: unknown): number {
  for (const [type, , code] of TABLE) if (error instanceof type) return code;
  return 1;
}

/**
 * The same table read backwards, for clients of the console: an HTTP error status becomes the domain
 * error the rest of flagops understands. Other 4xx (413, 415) are the caller's input; 5xx are upstream.
 */
export function domainErrorOf(status: number, message: string, errors: FieldError[] = []): DomainError {
  if (status === 413 || status === 415) return new InputError(message, errors);
  const row = TABLE.find(([type, code]) => code === status && type !== UpstreamError);
  if (row?.[0] === InputError) return new InputError(message, errors);
  return row ? new row[0](message) : new UpstreamError(message);
}
