import Database from 'better-sqlite3';
import { MIGRATIONS } from '../store/sqlite/migrations.js';

/**
 * A SQLite console database as an older build left it: the migrations up to `version` applied and
 * recorded, nothing else. Written through better-sqlite3 directly, because today's store prepares
 * statements for columns the older schema lacks. The caller fills it and closes it.
 */
export function sqliteAtVersion(path: string, version: number): Database.Database {
  const db = new Database(path);
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_time INTEGER NOT NULL)');
  for (const m of MIGRATIONS.filter((m) => m.version <= version)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_time) VALUES (?, ?, ?)').run(m.version, m.name, 0);
  }
  return db;
}
