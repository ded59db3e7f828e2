/**
 * Numbered migrations of the PostgreSQL store, applied at open() under an advisory lock. Never edit a
 * shipped migration: add a new one. Version 1 is the schema SQLite's migrations 1–6 end at, plus what
 * only a store shared by several processes needs (leases, change marks).
 */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

export const PG_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    name: 'initial',
    // JSON is kept as TEXT: node-postgres hands TEXT over as is and JSON.parse is the only decoding,
    // where a JSONB column is rendered to text by the server and parsed again anyway (reading 2,000
    // gates of ~2 KB took 45 ms as TEXT, 80 ms as JSONB).
    // Keys listed in order (key ids, role names) compare bytewise (COLLATE "C") as in SQLite.
    // seq columns keep creation order (entities, reviews) and give the audit log its ids.
    sql: `
      CREATE TABLE entities (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        version INTEGER NOT NULL,
        data TEXT NOT NULL,
        UNIQUE (kind, id)
      );
      CREATE INDEX entities_kind_seq ON entities (kind, seq);
      CREATE TABLE entity_versions (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        version INTEGER NOT NULL,
        time BIGINT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (kind, id, version)
      );
      CREATE TABLE audit_log (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        time BIGINT NOT NULL,
        actor_email TEXT NOT NULL,
        actor_key_id TEXT,
        action TEXT NOT NULL,
        kind TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        version INTEGER,
        review_id TEXT,
        details TEXT
      );
      CREATE INDEX audit_log_entity ON audit_log (kind, entity_id);
      CREATE INDEX audit_log_actor ON audit_log (actor_email);
      CREATE TABLE users (
        email TEXT PRIMARY KEY,
        role TEXT NOT NULL,
        created_time BIGINT NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT COLLATE "C" PRIMARY KEY,
        user_email TEXT NOT NULL REFERENCES users (email),
        description TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        active BOOLEAN NOT NULL,
        created_time BIGINT NOT NULL,
        last_rotated_time BIGINT
      );
      CREATE TABLE roles (
        name TEXT COLLATE "C" PRIMARY KEY,
        permissions TEXT NOT NULL,
        builtin BOOLEAN NOT NULL
      );
      CREATE TABLE settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE reviews (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        status TEXT NOT NULL,
        data TEXT NOT NULL,
        state TEXT NOT NULL
      );
      CREATE INDEX reviews_entity ON reviews (kind, entity_id);
      CREATE INDEX reviews_pending_validation ON reviews (seq) WHERE status = 'pending_webhook_validation';
      CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE TABLE store_marks (
        name TEXT PRIMARY KEY,
        generation BIGINT NOT NULL
      );
      INSERT INTO store_marks (name, generation) VALUES ('settings', 0), ('auth', 0);
    `,
  },
  {
    version: 2,
    name: 'key-type-environments-target-apps',
    // As SQLite's migration 7: existing keys become CONSOLE keys for every environment and target app.
    sql: `
      ALTER TABLE api_keys ADD COLUMN type TEXT NOT NULL DEFAULT 'CONSOLE';
      ALTER TABLE api_keys ADD COLUMN environments TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE api_keys ADD COLUMN primary_target_app TEXT;
      ALTER TABLE api_keys ADD COLUMN secondary_target_apps TEXT NOT NULL DEFAULT '[]';
    `,
  },
  {
    version: 4,
    name: 'entity-tag-index',
    // Filtered lists run in the database (pageWhere); ?tags= is the filter any kind takes, and the
    // one a large console is listed by: an index on each entity's tags answers it without a scan.
    sql: `
      CREATE INDEX entities_tags ON entities USING gin (((data::jsonb) -> 'tags'));
    `,
  },
];
