import type { LeaseRepo } from '../ports.js';
import type { Queryable } from './pg-context.js';

/** The database's clock in epoch ms: replicas' clocks may disagree, the one database's can't. */
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

export class PgLeaseRepo implements LeaseRepo {
  constructor(private readonly db: Queryable) {}

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    // One statement: take a free lease, renew one's own, or take over an expired one; a lease held
    // by another owner is left alone and nothing is returned.
    const { rowCount } = await this.db.query(
      `INSERT INTO leases (name, owner, expires_at) VALUES ($1, $2, ${NOW_MS} + $3)
       ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE leases.owner = EXCLUDED.owner OR leases.expires_at < ${NOW_MS}
       RETURNING owner`,
      [name, owner, Math.round(ttlMs)],
    );
    return rowCount === 1;
  }

  async list(prefix: string): Promise<{ name: string; owner: string; expiresAt: number }[]> {
    const { rows } = await this.db.query<{ name: string; owner: string; expires_at: number }>(
      `SELECT name, owner, expires_at FROM leases WHERE left(name, length($1)) = $1 AND expires_at >= ${NOW_MS} ORDER BY name`,
      [prefix],
    );
    return rows.map((row) => ({ name: row.name, owner: row.owner, expiresAt: Number(row.expires_at) }));
  }

  async release(name: string, owner: string): Promise<void> {
    await this.db.query('DELETE FROM leases WHERE name = $1 AND owner = $2', [name, owner]);
  }
}
