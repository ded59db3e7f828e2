import { scopeColumns, scopeFields, type KeyScopeRow } from '../key-scope-columns.js';
import { DuplicateKeyError, type AuthRepo, type KeyRecord, type UserRecord } from '../ports.js';
import { bumpMark, type PgContext } from './pg-context.js';

interface KeyRow extends KeyScopeRow {
  id: string;
  user_email: string;
  description: string;
  hash: string;
  scopes: string;
  active: boolean;
  created_time: number;
  last_rotated_time: number | null;
}

const KEY_COLUMNS = 'id, user_email, description, hash, scopes, active, created_time, last_rotated_time, type, environments, primary_target_app, secondary_target_apps';

/** Users and keys. Every write moves the `auth` change mark in the same statement. */
export class PgAuthRepo implements AuthRepo {
  constructor(private readonly ctx: PgContext) {}

  async getUser(email: string): Promise<UserRecord | undefined> {
    const { rows } = await this.ctx.db.query<{ email: string; role: string; created_time: number }>('SELECT email, role, created_time FROM users WHERE email = $1', [email]);
    const row = rows[0];
    return row && { email: row.email, role: row.role, createdTime: row.created_time };
  }

  async upsertUser(user: UserRecord): Promise<void> {
    await this.ctx.db.query(
      `WITH ${bumpMark('auth')}
       INSERT INTO users (email, role, created_time) VALUES ($1, $2, $3) ON CONFLICT (email) DO UPDATE SET role = EXCLUDED.role`,
      [user.email, user.role, user.createdTime],
    );
  }

  async getKey(id: string): Promise<KeyRecord | undefined> {
    const { rows } = await this.ctx.db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return rows[0] && toKey(rows[0]);
  }

  async findKeyByHash(hash: string): Promise<KeyRecord | undefined> {
    const { rows } = await this.ctx.db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1`, [hash]);
    return rows[0] && toKey(rows[0]);
  }

  async listKeys(): Promise<KeyRecord[]> {
    const { rows } = await this.ctx.db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_time, id`);
    return rows.map(toKey);
  }

  async insertKey(key: KeyRecord): Promise<void> {
    // A conflict on the id or the hash inserts nothing (rowCount 0) without aborting a transaction.
    const { rowCount } = await this.ctx.db.query(
      `WITH ${bumpMark('auth')}
       INSERT INTO api_keys (${KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
      [key.id, key.userEmail, key.description, key.hash, JSON.stringify(key.scopes), key.active, key.createdTime, key.lastRotatedTime, ...scopeColumns(key)],
    );
    if (rowCount === 0) throw new DuplicateKeyError(`key ${key.id}`);
  }

  async updateKey(key: KeyRecord): Promise<void> {
    await this.ctx.db.query(
      `WITH ${bumpMark('auth')}
       UPDATE api_keys SET user_email = $1, description = $2, hash = $3, scopes = $4, active = $5, last_rotated_time = $6,
         type = $7, environments = $8, primary_target_app = $9, secondary_target_apps = $10 WHERE id = $11`,
      [key.userEmail, key.description, key.hash, JSON.stringify(key.scopes), key.active, key.lastRotatedTime, ...scopeColumns(key), key.id],
    );
  }

  async deleteKey(id: string): Promise<void> {
    await this.ctx.db.query(`WITH ${bumpMark('auth')} DELETE FROM api_keys WHERE id = $1`, [id]);
  }

  async countKeys(): Promise<number> {
    const { rows } = await this.ctx.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM api_keys');
    return rows[0]?.n ?? 0;
  }

  async countUsersWithRole(role: string): Promise<number> {
    const { rows } = await this.ctx.db.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM users WHERE role = $1', [role]);
    return rows[0]?.n ?? 0;
  }
}

function toKey(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    userEmail: row.user_email,
    description: row.description,
    hash: row.hash,
    scopes: JSON.parse(row.scopes) as string[],
    active: row.active,
    createdTime: row.created_time,
    lastRotatedTime: row.last_rotated_time,
    ...scopeFields(row),
  };
}

