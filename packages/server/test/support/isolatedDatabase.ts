import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { inject, onTestFinished } from 'vitest';
import { connect, type Db, migrateToLatest } from '../../src/db/database.ts';

/**
 * A database of its own for tests that run workers: every worker on a database claims any job of the tasks it
 * knows, so workers started by other test files (with other chains, keys or receivers) must not see these jobs.
 * Migrated, unless `empty` (for a test whose service migrates it).
 */
export async function createIsolatedDatabase(
  options: { empty?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `paygate_isolated_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const urlOf = (database: string) => {
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${database}`;
    return url.href;
  };
  // Through the maintenance database, so the run's own database is never in the way.
  const onMaintenanceDatabase = async (statement: ReturnType<typeof sql>) => {
    const admin = connect(urlOf('postgres'), 1);
    try {
      await statement.execute(admin);
    } finally {
      await admin.destroy();
    }
  };
  await onMaintenanceDatabase(sql`CREATE DATABASE ${sql.id(name)}`);
  if (!options.empty) {
    const db = connect(urlOf(name), 2);
    await migrateToLatest(db, urlOf(name));
    await db.destroy();
  }
  return {
    url: urlOf(name),
    drop: () => onMaintenanceDatabase(sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`),
  };
}

/** A database of this test's own and a connection to it, both gone when the test finishes. */
export async function isolatedTestDatabase(): Promise<{ url: string; db: Db }> {
  const database = await createIsolatedDatabase();
  onTestFinished(() => database.drop());
  const db = connect(database.url, 2);
  onTestFinished(() => db.destroy());
  return { url: database.url, db };
}
