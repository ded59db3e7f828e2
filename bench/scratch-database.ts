import pg from 'pg';

/**
 * A scratch database on the PostgreSQL server `adminUrl` names (its user may create databases), named
 * after this process; `drop` ends its connections and drops it.
 */
export async function createScratchDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const scratch = `flagops_bench_${process.pid}`;
  await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${scratch}`);
  const url = new URL(adminUrl);
  url.pathname = `/${scratch}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
      await admin.end();
    },
  };
}
