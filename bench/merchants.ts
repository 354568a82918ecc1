import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect, migrateToLatest } from '../packages/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { load, printTable, ROOT, type Spawned, spawnListening } from './support.ts';

/**
 * Issue target: GET /v1/merchants/{id} reaches at least half the throughput of a bare Fastify JSON route
 * (authentication must not cost a database round-trip per request). Server and load generator run as
 * separate processes on this machine.
 */
export async function runMerchantsBenchmark(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-'));
  const database = await startEmbeddedPostgres(dataDir);
  const db = connect(database.url, 4);
  await migrateToLatest(db, database.url);
  const partner = await createPartner(db, 'Bench partner');

  const processes: Spawned[] = [];
  try {
    const bare = await spawnListening(['--import', 'tsx', 'bench/bareServer.ts'], {}, /listening (http:\/\/\S+)/);
    processes.push(bare);
    const service = await spawnListening(
      [path.join(ROOT, 'packages/server/bin/paygate.js'), 'start'],
      { DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '100000000', DEMO_PARTNER: 'never' },
      /paygate listening at (http:\/\/\S+)/,
    );
    processes.push(service);
    const headers = { 'api-key': partner.apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${service.url}/v1/merchants`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ merchantName: 'Bench Shop', merchantEmail: 'bench@shop.com' }),
    });
    const merchantId = ((await created.json()) as { merchant: { id: string } }).merchant.id;

    await load('warm-up', { url: `${service.url}/v1/merchants/${merchantId}`, headers, duration: 3 });
    const bareResult = await load('(a) bare Fastify JSON route', { url: `${bare.url}/bare` });
    const getResult = await load('(b) GET /v1/merchants/{id}', { url: `${service.url}/v1/merchants/${merchantId}`, headers });
    const createResult = await load('(c) POST /v1/merchants', {
      url: `${service.url}/v1/merchants`,
      method: 'POST',
      headers,
      body: JSON.stringify({ merchantName: 'Load Shop', merchantEmail: 'load@shop.com' }),
      setupClient: (client) => {
        client.setHeaders({ ...headers, 'idempotency-key': randomUUID() });
        client.on('response', () => client.setHeaders({ ...headers, 'idempotency-key': randomUUID() }));
      },
    });
    printTable([bareResult, getResult, createResult]);
    process.stdout.write(
      `ratio b/a: ${(getResult.requestsPerSecond / bareResult.requestsPerSecond).toFixed(2)}  ratio c/a: ${(createResult.requestsPerSecond / bareResult.requestsPerSecond).toFixed(2)}\n`,
    );
  } finally {
    await Promise.all(processes.map((spawned) => spawned.stop()));
    await db.destroy();
    await database.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
