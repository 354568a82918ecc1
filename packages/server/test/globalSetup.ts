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

let embedded: EmbeddedDatabase | undefined;

/**
 * One database per test run: DATABASE_URL when given, else a fresh database in an embedded PostgreSQL kept in
 * the system temp folder (initialised once, reused by later runs). Tests isolate themselves by partner.
 */
export async function setup(project: TestProject): Promise<void> {
  let url = process.env.DATABASE_URL;
  if (!url) {
    const dataDir = path.join(os.tmpdir(), 'paygate-test-postgres');
    const server = await startEmbeddedPostgres(dataDir, { database: 'postgres' });
    embedded = server;
    const runDatabase = `paygate_test_${Date.now()}_${process.pid}`;
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'paygate_test_%'");
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${runDatabase}"`);
    await admin.end();
    url = server.url.replace(/\/postgres$/, `/${runDatabase}`);
  }
  const db = connect(url, 2);
  await migrateToLatest(db, url);
  await db.destroy();
  project.provide('databaseUrl', url);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
}
