import { describe, expect, it } from 'vitest';
import { domainErrorOf, exitCodeOf, httpStatusOf } from './error-table.js';
import { AuthenticationError, ConflictError, DomainError, InputError, NotAllowedError, NotFoundError, RateLimitedError, UpstreamError } from './errors.js';

describe('error table', () => {
  it.each([
    [new InputError('x'), 400],
    [new AuthenticationError('x'), 401],
    [new NotAllowedError('x'), 403],
    [new NotFoundError('x'), 404],
    [new ConflictError('x'), 409],
    [new RateLimitedError('x'), 429],
    [new UpstreamError('x'), 502],
    [new Error('x'), 500],
  ])('maps %s to %i and exit code 1', (error, status) => {
    expect(httpStatusOf(error)).toBe(status);
    expect(exitCodeOf(error)).toBe(1);
  });

  it('reads HTTP statuses back into the same domain errors, keeping field errors', () => {
    for (const [status, type] of [[400, InputError], [401, AuthenticationError], [403, NotAllowedError], [404, NotFoundError], [409, ConflictError], [429, RateLimitedError]] as const) {
      const error = domainErrorOf(status, 'm');
      expect(error).toBeInstanceOf(type);
      expect(httpStatusOf(error)).toBe(status);
    }
    const input = domainErrorOf(400, 'bad', [{ property: 'name', errorMessage: 'is required' }]);
    expect((input as InputError).errors).toEqual([{ property: 'name', errorMessage: 'is required' }]);
    expect(domainErrorOf(413, 'big')).toBeInstanceOf(InputError);
    expect(domainErrorOf(415, 'type')).toBeInstanceOf(InputError);
    expect(domainErrorOf(500, 'boom')).toBeInstanceOf(UpstreamError);
    expect(domainErrorOf(502, 'bad gateway')).toBeInstanceOf(UpstreamError);
    expect(domainErrorOf(418, 'teapot')).toBeInstanceOf(DomainError);
  });
});
