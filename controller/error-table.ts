import type {
  DomainError} from './errors.js';
import {
  AuthenticationError,
  ConflictError,
  InputError,
  NotAllowedError,
  NotFoundError,
  RateLimitedError,
  UpstreamError,
} from './errors.js';

/** The one table from domain errors to HTTP statuses and CLI exit codes. */
const TABLE: ReadonlyArray<readonly [new (...args: never[]) => DomainError, number, number]> = [
  [InputError, 400, 1],
  [AuthenticationError, 401, 1],
  [NotAllowedError, 403, 1],
  [NotFoundError, 404, 1],
  [ConflictError, 409, 1],
  [RateLimitedError, 429, 1],
  [UpstreamError, 502, 1],
];

export function httpStatusOf(error: unknown): number {
  for (const [type, status] of TABLE) if (error instanceof type) return status;
  return 500;
}

export function exitCodeOf(error: unknown): number {
  for (const [type, , code] of TABLE) if (error instanceof type) return code;
  return 1;
}
