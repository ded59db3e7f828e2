/**
 * Domain errors. They know nothing of HTTP or exit codes: `error-table.ts` is the only place that
 * translates them, so the console API and the CLI can never disagree about what a failure means.
 */
export interface FieldError {
  /** Property path in the input, e.g. `rules[0].passPercentage`. */
  property: string;
  errorMessage: string;
}

export class DomainError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Invalid input: every violated constraint is listed with its property path. */
export class InputError extends DomainError {
  readonly errors: FieldError[];
  constructor(message: string, errors: FieldError[] = []) {
    super(message);
    this.errors = errors;
  }
}

export class AuthenticationError extends DomainError {}
export class NotAllowedError extends DomainError {}
export class NotFoundError extends DomainError {}
/** Duplicate id or name, stale version, or an entity/review in the wrong state. */
export class ConflictError extends DomainError {}
export class RateLimitedError extends DomainError {
  /** Seconds after which a retry may succeed (HTTP Retry-After). */
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, retryAfterSeconds?: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
/** The service cannot take the request now (it is shutting down); the same request may succeed elsewhere or later. */
export class UnavailableError extends DomainError {}
/** A dependency outside the process (git, the console, a webhook receiver) failed. */
export class UpstreamError extends DomainError {}

/**
 * An error as one line: `property: message`, or the message alone when it names no property (a
 * repository diagnostic about a whole file carries its `file:line:col` in the message instead).
 */
export function formatFieldError(error: FieldError): string {
  return error.property === '' ? error.errorMessage : `${error.property}: ${error.errorMessage}`;
}

export function fieldError(property: string, errorMessage: string): FieldError {
  return { property, errorMessage };
}

/** Throws an InputError when the list is not empty. */
export function throwIfInvalid(errors: FieldError[], message = 'Invalid request.'): void {
  if (errors.length > 0) throw new InputError(message, errors);
}
