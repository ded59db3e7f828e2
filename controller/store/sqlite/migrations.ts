/**
 * Numbered migrations, applied in order at start inside one transaction each. Never edit a shipped
 * migration: add a new one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE entities (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        version INTEGER NOT NULL,
        data TEXT NOT NULL,
        UNIQUE (kind, id)
      );
      CREATE TABLE entity_versions (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        version INTEGER NOT NULL,
        time INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (kind, id, version)
      ) WITHOUT ROWID;
      CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        time INTEGER NOT NULL,
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
        created_time INTEGER NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        user_email TEXT NOT NULL REFERENCES users (email),
        description TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        active INTEGER NOT NULL,
        created_time INTEGER NOT NULL,
        last_rotated_time INTEGER
      );
      CREATE TABLE roles (
        name TEXT PRIMARY KEY,
        permissions TEXT NOT NULL,
        builtin INTEGER NOT NULL
      );
      CREATE TABLE settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'reviews',
    sql: `
      CREATE TABLE reviews (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        status TEXT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX reviews_entity ON reviews (kind, entity_id);
      CREATE INDEX reviews_status ON reviews (status);
    `,
  },
  {
    version: 3,
    name: 'entities-kind-seq',
    // Lists and pages of a kind walk this index in order; without it SQLite sorted every row of the
    // kind, data included, for each page (a full read of 20,000 gates grew quadratically).
    sql: `CREATE INDEX entities_kind_seq ON entities (kind, seq);`,
  },
  {
    version: 4,
    name: 'review-state',
    // A review's decision fields (status, approvals, validation) move to their own column: the
    // submitted part (change, configs before and after) is written once, not again on every decision.
    // Rows from before keep everything in data; state, once written, overrides it.
    sql: `ALTER TABLE reviews ADD COLUMN state TEXT;`,
  },
  {
    version: 5,
    name: 'reviews-pending-index',
    // Every decision moved a review's entry in reviews_status: two index pages more per write
    // transaction, four times per review. The one query by status that must be fast is the
    // dispatcher's resume of pending validations; a partial index holds just those rows, so only the
    // commit that starts a validation and the decision that ends it touch it. Lists by status filter
    // by entity too (reviews_entity), or walk seq.
    sql: `
      DROP INDEX reviews_status;
      CREATE INDEX reviews_pending_validation ON reviews (seq) WHERE status = 'pending_webhook_validation';
    `,
  },
  {
    version: 6,
    name: 'member-cannot-validate',
    // Deciding a validation moves to the built-in webhook_receiver role (created at start like every
    // built-in role): a member could approve the validation of its own change and skip the receiver.
    // The member role loses validate_changes even where it was edited; admin keeps every permission.
    sql: `
      UPDATE roles
      SET permissions = (SELECT json_group_array(value) FROM json_each(roles.permissions) WHERE value <> 'validate_changes')
      WHERE name = 'member' AND builtin = 1;
    `,
  },
  {
    version: 7,
    name: 'key-type-environments-target-apps',
    // Every key before this one called the Console API: it becomes a CONSOLE key for every
    // environment and every target app, which is what it could do.
    sql: `
      ALTER TABLE api_keys ADD COLUMN type TEXT NOT NULL DEFAULT 'CONSOLE';
      ALTER TABLE api_keys ADD COLUMN environments TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE api_keys ADD COLUMN primary_target_app TEXT;
      ALTER TABLE api_keys ADD COLUMN secondary_target_apps TEXT NOT NULL DEFAULT '[]';
    `,
  },
  {
    version: 8,
    name: 'audit-log-without-autoincrement',
    // AUTOINCREMENT made every audit row one page more per write (its sqlite_sequence row). Audit rows
    // are never deleted, so the next rowid is always past every id ever given: ids stay increasing and
    // unique without it. The table is rebuilt with the same rows and ids.
    sql: `
      CREATE TABLE audit_log_rebuilt (
        seq INTEGER PRIMARY KEY,
        time INTEGER NOT NULL,
        actor_email TEXT NOT NULL,
        actor_key_id TEXT,
        action TEXT NOT NULL,
        kind TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        version INTEGER,
        review_id TEXT,
        details TEXT
      );
      INSERT INTO audit_log_rebuilt (seq, time, actor_email, actor_key_id, action, kind, entity_id, version, review_id, details)
        SELECT seq, time, actor_email, actor_key_id, action, kind, entity_id, version, review_id, details FROM audit_log;
      DROP TABLE audit_log;
      ALTER TABLE audit_log_rebuilt RENAME TO audit_log;
      CREATE INDEX audit_log_entity ON audit_log (kind, entity_id);
      CREATE INDEX audit_log_actor ON audit_log (actor_email);
      DELETE FROM sqlite_sequence WHERE name = 'audit_log';
    `,
  },
  {
    version: 9,
    name: 'entity-versions-rowid',
    // A table WITHOUT ROWID keeps rows in an index b-tree, where a row past ≈ 1,000 bytes (a 4 KB page's
    // limit for index cells) spills into an overflow page of its own: most snapshots are larger, so
    // every write added a fresh 4 KB page to the WAL and the file (≈ 4.8 KB a version). A rowid table
    // keeps rows up to ≈ 4 KB in its leaves, packed in write order, and the unique index holds only the
    // key. Same rows, same key, same query plans.
    sql: `
      CREATE TABLE entity_versions_rebuilt (
        seq INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        version INTEGER NOT NULL,
        time INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      INSERT INTO entity_versions_rebuilt (kind, id, version, time, data)
        SELECT kind, id, version, time, data FROM entity_versions ORDER BY time, kind, id, version;
      DROP TABLE entity_versions;
      ALTER TABLE entity_versions_rebuilt RENAME TO entity_versions;
      CREATE UNIQUE INDEX entity_versions_key ON entity_versions (kind, id, version);
    `,
  },
  {
    version: 11,
    name: 'write-probe',
    // Readiness writes here (a row, then the one before it deleted): the database is ready only while
    // a write can commit, not merely while it can be read (a full disk lets reads through).
    sql: `
      CREATE TABLE write_probe (id INTEGER PRIMARY KEY, pad BLOB NOT NULL);
    `,
  },
];
