import type Database from 'better-sqlite3';
import type { JsonObject, RoleRecord, RoleRepo, SettingsRepo } from '../ports.js';
import type { Sync } from '../sync-backed-store.js';

export class SqliteRoleRepo implements Sync<RoleRepo> {
  private readonly stmts;
  /** Writes through this connection (rolled back ones too): part of the store's auth mark. */
  writes = 0;

  constructor(db: Database.Database) {
    this.stmts = {
      get: db.prepare('SELECT name, permissions, builtin FROM roles WHERE name = ?'),
      list: db.prepare('SELECT name, permissions, builtin FROM roles ORDER BY builtin DESC, name'),
      upsert: db.prepare('INSERT INTO roles (name, permissions, builtin) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET permissions = excluded.permissions'),
      delete: db.prepare('DELETE FROM roles WHERE name = ?'),
    };
  }

  get(name: string): RoleRecord | undefined {
    const row = this.stmts.get.get(name) as RoleRow | undefined;
    return row && toRole(row);
  }

  list(): RoleRecord[] {
    return (this.stmts.list.all() as RoleRow[]).map(toRole);
  }

  upsert(role: RoleRecord): void {
    this.writes++;
    this.stmts.upsert.run(role.name, JSON.stringify(role.permissions), role.builtin ? 1 : 0);
  }

  delete(name: string): void {
    this.writes++;
    this.stmts.delete.run(name);
  }
}

interface RoleRow {
  name: string;
  permissions: string;
  builtin: number;
}

function toRole(row: RoleRow): RoleRecord {
  return { name: row.name, permissions: JSON.parse(row.permissions) as string[], builtin: row.builtin === 1 };
}

export class SqliteSettingsRepo implements Sync<SettingsRepo> {
  private readonly stmts;
  /** Settings writes through this connection (rolled back ones too): part of the store's settings mark. */
  writes = 0;

  constructor(db: Database.Database) {
    this.stmts = {
      get: db.prepare('SELECT value FROM settings WHERE name = ?'),
      set: db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
    };
  }

  get(name: string): JsonObject | undefined {
    const row = this.stmts.get.get(name) as { value: string } | undefined;
    return row && (JSON.parse(row.value) as JsonObject);
  }

  set(name: string, value: JsonObject): void {
    this.writes++;
    this.stmts.set.run(name, JSON.stringify(value));
  }
}
