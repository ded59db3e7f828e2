import { describe, expect, it } from 'vitest';
import { ConflictError, UnavailableError } from '../../errors.js';
import { describeDbError, isConnectionFailure, unavailableOr } from './pg-unavailable.js';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('database connection failures', () => {
  it('are told apart from failures of the statement itself', () => {
    expect(isConnectionFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionFailure(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isConnectionFailure(withCode('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isConnectionFailure(withCode('the database system is starting up', '57P03'))).toBe(true);
    expect(isConnectionFailure(new Error('gate g could not be written', { cause: withCode('terminating connection due to unexpected postmaster exit', '57P02') }))).toBe(true);
    expect(isConnectionFailure(new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''))).toBe(true);
    expect(isConnectionFailure(withCode('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(isConnectionFailure(withCode('relation "x" does not exist', '42P01'))).toBe(false);
    expect(isConnectionFailure('Connection terminated')).toBe(false);
  });

  it('become a retryable UnavailableError keeping the cause; other errors pass through unchanged', () => {
    const dropped = new Error('Connection terminated unexpectedly');
    const wrapped = unavailableOr(dropped);
    expect(wrapped).toBeInstanceOf(UnavailableError);
    expect((wrapped as Error).message).toBe('The database is not available (Connection terminated unexpectedly); retry the request.');
    expect((wrapped as Error).cause).toBe(dropped);
    const conflict = new ConflictError('stale');
    expect(unavailableOr(conflict)).toBe(conflict);
  });

  it('are logged by message and code, never with what the error object references', () => {
    const error = Object.assign(withCode('terminating connection due to administrator command', '57P01'), { severity: 'FATAL', client: { statements: 'SELECT secret' } });
    expect(describeDbError(error)).toEqual({ message: 'terminating connection due to administrator command', code: '57P01', severity: 'FATAL' });
    expect(JSON.stringify(describeDbError(error))).not.toContain('SELECT');
  });
});
