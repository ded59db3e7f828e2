import type Database from 'better-sqlite3';
import { scopeColumns, scopeFields, type KeyScopeRow } from '../key-scope-columns.js';
import { DuplicateKeyError, type AuthRepo, type KeyRecord, type UserRecord } from '../ports.js';
import type { Sync } from '../sync-backed-store.js';
import { isUniqueViolation } from './sqlite-entity-repo.js';

interface KeyRow extends KeyScopeRow {
  id: string;
  user_email: string;
  description: string;
  hash: string;
  scopes: string;
  active: number;
  created_time: number;
  last_rotated_time: number | null;
}

export class SqliteAuthRepo implements Sync<AuthRepo> {
  private readonly stmts;
  /** Writes through this connection (rolled back ones too): part of the store's auth mark. */
  writes = 0;

  constructor(db: Database.Database) {
    this.stmts = {
      getUser: db.prepare('SELECT email, role, created_time FROM users WHERE email = ?'),
      upsertUser: db.prepare('INSERT INTO users (email, role, created_time) VALUES (?, ?, ?) ON CONFLICT (email) DO UPDATE SET role = excluded.role'),
      getKey: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
      findKeyByHash: db.prepare('SELECT * FROM api_keys WHERE hash = ?'),
      listKeys: db.prepare('SELECT * FROM api_keys ORDER BY created_time, id'),
      insertKey: db.prepare(
        'INSERT INTO api_keys (id, user_email, description, hash, scopes, active, created_time, last_rotated_time, type, environments, primary_target_app, secondary_target_apps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      updateKey: db.prepare(
        'UPDATE api_keys SET user_email = ?, description = ?, hash = ?, scopes = ?, active = ?, last_rotated_time = ?, type = ?, environments = ?, primary_target_app = ?, secondary_target_apps = ? WHERE id = ?',
      ),
      deleteKey: db.prepare('DELETE FROM api_keys WHERE id = ?'),
      countKeys: db.prepare('SELECT COUNT(*) AS n FROM api_keys'),
      countUsersWithRole: db.prepare('SELECT COUNT(*) AS n FROM users WHERE role = ?'),
    };
  }

  getUser(email: string): UserRecord | undefined {
    const row = this.stmts.getUser.get(email) as { email: string; role: string; created_time: number } | undefined;
    return row && { email: row.email, role: row.role, createdTime: row.created_time };
  }

  upsertUser(user: UserRecord): void {
    this.writes++;
    this.stmts.upsertUser.run(user.email, user.role, user.createdTime);
  }

  getKey(id: string): KeyRecord | undefined {
    const row = this.stmts.getKey.get(id) as KeyRow | undefined;
    return row && toKey(row);
  }

  findKeyByHash(hash: string): KeyRecord | undefined {
    const row = this.stmts.findKeyByHash.get(hash) as KeyRow | undefined;
    return row && toKey(row);
  }

  listKeys(): KeyRecord[] {
    return (this.stmts.listKeys.all() as KeyRow[]).map(toKey);
  }

  insertKey(key: KeyRecord): void {
    this.writes++;
    try {
      this.stmts.insertKey.run(key.id, key.userEmail, key.description, key.hash, JSON.stringify(key.scopes), key.active ? 1 : 0, key.createdTime, key.lastRotatedTime, ...scopeColumns(key));
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateKeyError(`key ${key.id}`);
      throw error;
    }
  }

  updateKey(key: KeyRecord): void {
    this.writes++;
    this.stmts.updateKey.run(key.userEmail, key.description, key.hash, JSON.stringify(key.scopes), key.active ? 1 : 0, key.lastRotatedTime, ...scopeColumns(key), key.id);
  }

  deleteKey(id: string): void {
    this.writes++;
    this.stmts.deleteKey.run(id);
  }

  countKeys(): number {
    return (this.stmts.countKeys.get() as { n: number }).n;
  }

  countUsersWithRole(role: string): number {
    return (this.stmts.countUsersWithRole.get(role) as { n: number }).n;
  }
}

function toKey(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    userEmail: row.user_email,
    description: row.description,
    hash: row.hash,
    scopes: JSON.parse(row.scopes) as string[],
    active: row.active === 1,
    createdTime: row.created_time,
    lastRotatedTime: row.last_rotated_time,
    ...scopeFields(row),
  };
}

