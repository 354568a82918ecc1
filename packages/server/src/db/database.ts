import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { startEmbeddedPostgres } from './embeddedPostgres.ts';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';

// int8 (bigint, count(*)) arrives as a string so amounts never pass through a float.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  url: string;
  /** Whether the service runs on its own embedded PostgreSQL (no DATABASE_URL). */
  embedded: boolean;
  close(): Promise<void>;
}

export function connect(url: string, poolSize: number): Db {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** Opens the configured database: DATABASE_URL, or the embedded PostgreSQL in DATA_DIR. */
export async function openDatabase(config: Config, log?: (line: string) => void): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    const db = connect(config.databaseUrl, config.databasePoolSize);
    return { db, url: config.databaseUrl, embedded: false, close: () => db.destroy() };
  }
  const embedded = await startEmbeddedPostgres(config.dataDir, { log });
  const db = connect(embedded.url, config.databasePoolSize);
  return {
    db,
    url: embedded.url,
    embedded: true,
    close: async () => {
      await db.destroy();
      await embedded.stop();
    },
  };
}
