import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kysely, Migrator, sql, type Transaction } from 'kysely';
import { CommitAwarePostgresDialect } from './afterCommit.ts';
import { UserFacingError } from '../userFacingError.ts';
import pg from 'pg';
import type { Config } from '../config.ts';
import { clientOptions, DatabaseUrlError, describeDatabaseUrl, parseDatabaseUrl } from './databaseHosts.ts';
import { startEmbeddedPostgres } from './embeddedPostgres.ts';
import { PreparingClient } from './preparedStatements.ts';
import type { Database } from './schema.ts';

// int8 (bigint, count(*)) arrives as a string so amounts never pass through a float.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  /** Where connections that keep a session go (DATABASE_SESSION_URL, else the database's own URL). */
  url: string;
  /** Whether the service runs on its own embedded PostgreSQL (no DATABASE_URL). */
  embedded: boolean;
  close(): Promise<void>;
}

/** Runs `work` inside the caller's transaction when `db` is one (so its locks and checks hold), else in a new one. */
export function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}

/** A pool of `poolSize` connections to `url`: one server, or the writable one of several hosts (databaseHosts.ts). */
export function connect(url: string, poolSize: number, options: { preparedStatements?: boolean } = {}): Db {
  const pool = new pg.Pool({
    ...clientOptions(url, options.preparedStatements === false ? pg.Client : PreparingClient),
    max: poolSize,
  });
  // A client losing its connection (database restart) must not crash the process: an idle one is dropped by the
  // pool, and a checked-out one fails its queries, which their callers see.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({ dialect: new CommitAwarePostgresDialect({ pool }) });
}

/**
 * Applies the service's migrations and installs the job queue's schema. Both are loaded only here: an operator
 * command on a database already up to date (`migrationsPending`) starts without them.
 */
export async function migrateToLatest(db: Db, url: string): Promise<string[]> {
  const [{ migrateJobQueue }, { migrations }] = await Promise.all([
    import('../jobs/queue.ts'),
    import('./migrations/index.ts'),
  ]);
  await migrateJobQueue(url);
  // In a rolling upgrade this release may start (or start again) after the next one migrated the database further:
  // the Migrator refuses a database holding migrations it does not know, so it runs only when one of ours is missing.
  if (!(await migrationsPending(db))) return [];
  // A database may have applied a higher-numbered migration before a lower one shipped; each still runs exactly once.
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** The names of the service's migrations, read from their folder without loading them. */
function shippedMigrationNames(): string[] {
  const folder = fileURLToPath(new URL('./migrations/', import.meta.url));
  return readdirSync(folder)
    .filter((file) => /^\d{4}_\w+\.ts$/.test(file))
    .map((file) => file.slice(0, -'.ts'.length));
}

/** Whether the database lacks one of the service's migrations (or has none yet). */
export async function migrationsPending(db: Db): Promise<boolean> {
  const { rows: tables } = await sql<{ present: boolean }>`
    SELECT to_regclass('kysely_migration') IS NOT NULL AS present`.execute(db);
  if (!tables[0]?.present) return true;
  const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db);
  const applied = new Set(rows.map((row) => row.name));
  return shippedMigrationNames().some((name) => !applied.has(name));
}

export class DatabaseUnavailableError extends UserFacingError {}

/** A DATABASE_URL or DATABASE_SESSION_URL that cannot be read stops the start, naming the variable. */
function checkReadable(name: string, url: string | undefined): void {
  if (url === undefined) return;
  try {
    parseDatabaseUrl(url);
  } catch (error) {
    if (error instanceof DatabaseUrlError) throw new UserFacingError(`${name}: ${error.message}`);
    throw error;
  }
}

async function checkReachable(db: Db, url: string): Promise<void> {
  try {
    await sql`SELECT 1`.execute(db);
  } catch (error) {
    await db.destroy();
    const code = (error as { code?: string }).code;
    const reason = code === undefined || code === '08001' ? (error as Error).message : code;
    throw new DatabaseUnavailableError(`cannot connect to the database at ${describeDatabaseUrl(url)} (${reason})`);
  }
}

/** Opens the configured database: DATABASE_URL, or the embedded PostgreSQL in DATA_DIR. */
export async function openDatabase(config: Config, log?: (line: string) => void): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    checkReadable('DATABASE_URL', config.databaseUrl);
    checkReadable('DATABASE_SESSION_URL', config.databaseSessionUrl);
    const db = connect(config.databaseUrl, config.databasePoolSize, {
      preparedStatements: config.databasePreparedStatements,
    });
    await checkReachable(db, config.databaseUrl);
    // Connections that keep a session (LISTEN, the workers' and followers' locks) bypass a transaction pooler.
    return { db, url: config.databaseSessionUrl ?? config.databaseUrl, embedded: false, close: () => db.destroy() };
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
