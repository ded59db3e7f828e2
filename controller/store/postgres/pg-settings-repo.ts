import type { JsonObject, RoleRecord, RoleRepo, SettingsRepo } from '../ports.js';
import { bumpMark, type PgContext } from './pg-context.js';

interface RoleRow {
  name: string;
  permissions: string;
  builtin: boolean;
}

/** Roles. Every write moves the `auth` change mark in the same statement. */
export class PgRoleRepo implements RoleRepo {
  constructor(private readonly ctx: PgContext) {}

  async get(name: string): Promise<RoleRecord | undefined> {
    const { rows } = await this.ctx.db.query<RoleRow>('SELECT name, permissions, builtin FROM roles WHERE name = $1', [name]);
    return rows[0] && toRole(rows[0]);
  }

  async list(): Promise<RoleRecord[]> {
    const { rows } = await this.ctx.db.query<RoleRow>('SELECT name, permissions, builtin FROM roles ORDER BY builtin DESC, name');
    return rows.map(toRole);
  }

  async upsert(role: RoleRecord): Promise<void> {
    await this.ctx.db.query(
      `WITH ${bumpMark('auth')}
       INSERT INTO roles (name, permissions, builtin) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET permissions = EXCLUDED.permissions`,
      [role.name, JSON.stringify(role.permissions), role.builtin],
    );
  }

  async delete(name: string): Promise<void> {
    await this.ctx.db.query(`WITH ${bumpMark('auth')} DELETE FROM roles WHERE name = $1`, [name]);
  }
}

function toRole(row: RoleRow): RoleRecord {
  return { name: row.name, permissions: JSON.parse(row.permissions) as string[], builtin: row.builtin };
}

/** Settings. Every write moves the `settings` change mark in the same statement. */
export class PgSettingsRepo implements SettingsRepo {
  constructor(private readonly ctx: PgContext) {}

  async get(name: string): Promise<JsonObject | undefined> {
    const { rows } = await this.ctx.db.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name]);
    return rows[0] && (JSON.parse(rows[0].value) as JsonObject);
  }

  async set(name: string, value: JsonObject): Promise<void> {
    await this.ctx.db.query(
      `WITH ${bumpMark('settings')}
       INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`,
      [name, JSON.stringify(value)],
    );
  }
}
