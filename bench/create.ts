import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { connect, migrateToLatest } from '../packages/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { postgresCpuMs, processCpuMs } from './processCpu.ts';
import { STATEMENT_STATS_SETTINGS, StatementStats } from './statementStats.ts';
import { load, type LoadResult, startMainnetService } from './support.ts';

const CLIENTS = 20;
const ROUNDS = 4;
const ROUND_SECONDS = 5;
const TOP_STATEMENTS = 12;
const TARGET_RATIO = 0.1;

const write = (line = '') => process.stdout.write(`${line}\n`);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The floor: one single-row INSERT per statement (each its own transaction, as a create is), from `CLIENTS`
 * connections at once, into a table shaped like a payment's core columns, for `seconds`.
 */
async function rawInserts(url: string, seconds: number): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  let inserted = 0;
  const until = performance.now() + seconds * 1000;
  try {
    await Promise.all(
      clients.map(async (client) => {
        while (performance.now() < until) {
          await client.query(
            'INSERT INTO bench_raw_payments (id, merchant_id, reference_id, fiat_currency, fiat_value, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
            [randomUUID(), 'mer_bench', `load-${randomUUID()}`, 'USD', 1000, new Date(Date.now() + 3_600_000)],
          );
          inserted += 1;
        }
      }),
    );
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
  return inserted / seconds;
}

/**
 * `POST /v1/payments` against a raw single-row insert into a table on the same PostgreSQL with the same client
 * count, in alternating rounds (the machine's speed drifts): the ratio create/insert is the figure (target >= 0.1).
 * Then what one create asks of PostgreSQL, from `pg_stat_statements`, and the CPU each side used per request.
 */
export async function runCreateBenchmark(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-create-'));
  const database = await startEmbeddedPostgres(dataDir, { settings: STATEMENT_STATS_SETTINGS });
  const clusterDir = path.join(dataDir, 'postgres');
  const db = connect(database.url, 2);
  await migrateToLatest(db, database.url);
  const partner = await createPartner(db, 'Bench partner');
  await db.destroy();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`CREATE TABLE bench_raw_payments (
    id text PRIMARY KEY, merchant_id text NOT NULL, reference_id text NOT NULL, fiat_currency text NOT NULL,
    fiat_value bigint NOT NULL, expires_at timestamptz NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
  const service = await startMainnetService(database.url, dataDir, ['eip155:8453']);
  const statements = await StatementStats.open(database.url);
  try {
    const headers = { 'api-key': partner.apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${service.url}/v1/merchants`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ merchantName: 'Bench Shop', merchantEmail: 'bench@shop.com' }),
    });
    const merchantId = ((await created.json()) as { merchant: { id: string } }).merchant.id;
    const paymentHeaders = { ...headers, 'merchant-id': merchantId };
    const paymentBody = () =>
      JSON.stringify({ amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: `load-${randomUUID()}` });
    const createLoad = (seconds: number) =>
      load('POST /v1/payments', {
        url: `${service.url}/v1/payments`,
        method: 'POST',
        connections: CLIENTS,
        duration: seconds,
        // A new referenceId and Idempotency-Key on every request, so each one creates a payment, as partners' do.
        setupClient: (client) => {
          const next = () => {
            client.setHeaders({ ...paymentHeaders, 'idempotency-key': randomUUID() });
            client.setBody(paymentBody());
          };
          next();
          client.on('response', next);
        },
      });

    write(
      `one paygate process and one PostgreSQL on ${os.cpus().length} CPUs shared with this script; ${CLIENTS} clients each side`,
    );
    await createLoad(3);
    await rawInserts(database.url, 2);
    write(
      `round  inserts/s  creates/s  ratio  service CPU ms/create  PostgreSQL CPU ms/create  PostgreSQL CPU ms/insert`,
    );
    const ratios: number[] = [];
    const cpu: { service: number; postgres: number; statements?: Awaited<ReturnType<StatementStats['read']>> }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const insertCpuBefore = postgresCpuMs(clusterDir);
      const inserts = await rawInserts(database.url, ROUND_SECONDS);
      const insertCpu = (postgresCpuMs(clusterDir) ?? 0) - (insertCpuBefore ?? 0);
      await statements.reset();
      const serviceBefore = processCpuMs(service.child.pid);
      const postgresBefore = postgresCpuMs(clusterDir);
      const result: LoadResult = await createLoad(ROUND_SECONDS);
      const answered = result.requestsPerSecond * ROUND_SECONDS;
      const serviceMs = ((processCpuMs(service.child.pid) ?? 0) - (serviceBefore ?? 0)) / answered;
      const postgresMs = ((postgresCpuMs(clusterDir) ?? 0) - (postgresBefore ?? 0)) / answered;
      cpu.push({ service: serviceMs, postgres: postgresMs, statements: await statements.read(TOP_STATEMENTS) });
      const ratio = result.requestsPerSecond / inserts;
      ratios.push(ratio);
      write(
        `${String(round).padStart(5)} ${inserts.toFixed(0).padStart(10)} ${String(result.requestsPerSecond).padStart(10)} ${ratio.toFixed(3).padStart(6)} ` +
          `${serviceMs.toFixed(2).padStart(22)} ${postgresMs.toFixed(2).padStart(25)} ${(insertCpu / (inserts * ROUND_SECONDS)).toFixed(3).padStart(25)}` +
          (result.errors || result.non2xx ? `  (errors ${result.errors}, non-2xx ${result.non2xx})` : ''),
      );
    }
    write(
      `ratio create/insert: median ${median(ratios).toFixed(3)} (min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)}; target >= ${TARGET_RATIO})`,
    );
    const last = cpu.at(-1)?.statements;
    if (last) {
      const creates = Number((await admin.query('SELECT count(*) FROM payments')).rows[0].count);
      write(`PostgreSQL statements of the last round's creates (${creates} payments in all so far); the costliest:`);
      for (const statement of last.top)
        write(
          `  ${String(statement.calls).padStart(7)} calls ${statement.totalMs.toFixed(0).padStart(6)} ms  ${statement.query.slice(0, 120)}`,
        );
    }
  } finally {
    await statements.close();
    await admin.end();
    await service.stop();
    await database.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
