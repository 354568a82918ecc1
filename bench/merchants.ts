import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect, migrateToLatest } from '../packages/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { readFileSync } from 'node:fs';
import type autocannon from 'autocannon';
import { load, type LoadResult, printTable, type Spawned, spawnListening, startMainnetService } from './support.ts';

const ROUNDS = 6;
const ROUND_SECONDS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** CPU time (user + system) a process has used, in microseconds, from /proc (clock ticks of 10 ms). */
function cpuMicroseconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** One load run, with the CPU time the server process spent per request answered. */
async function loadWithCpu(server: Spawned, name: string, options: autocannon.Options) {
  const before = cpuMicroseconds(server.child.pid as number);
  const started = performance.now();
  const result = await load(name, options);
  const seconds = (performance.now() - started) / 1000;
  return {
    result,
    cpuUsPerRequest: (cpuMicroseconds(server.child.pid as number) - before) / (result.requestsPerSecond * seconds),
  };
}

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
    const service = await startMainnetService(database.url, dataDir, ['eip155:8453']);
    processes.push(service);
    const headers = { 'api-key': partner.apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${service.url}/v1/merchants`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ merchantName: 'Bench Shop', merchantEmail: 'bench@shop.com' }),
    });
    const merchantId = ((await created.json()) as { merchant: { id: string } }).merchant.id;

    await load('warm-up', { url: `${service.url}/v1/merchants/${merchantId}`, headers, duration: 3 });
    // The machine's speed drifts by tens of percent within a minute (shared host), so (a) and (b) alternate in short
    // rounds and the ratio is taken per round: each pair meets about the same conditions.
    const rounds: { bare: LoadResult; get: LoadResult; bareCpuUs: number; getCpuUs: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const bareRun = await loadWithCpu(bare, '(a) bare Fastify JSON route', {
        url: `${bare.url}/bare`,
        duration: ROUND_SECONDS,
      });
      const getRun = await loadWithCpu(service, '(b) GET /v1/merchants/{id}', {
        url: `${service.url}/v1/merchants/${merchantId}`,
        headers,
        duration: ROUND_SECONDS,
      });
      rounds.push({
        bare: bareRun.result,
        get: getRun.result,
        bareCpuUs: bareRun.cpuUsPerRequest,
        getCpuUs: getRun.cpuUsPerRequest,
      });
    }
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
    process.stdout.write(`round  (a) req/s  (b) req/s   b/a  (a) server CPU us/req  (b) server CPU us/req\n`);
    rounds.forEach((round, index) => {
      process.stdout.write(
        `${String(index + 1).padStart(5)} ${String(round.bare.requestsPerSecond).padStart(10)} ${String(round.get.requestsPerSecond).padStart(10)} ` +
          `${(round.get.requestsPerSecond / round.bare.requestsPerSecond).toFixed(2).padStart(5)} ${round.bareCpuUs.toFixed(1).padStart(22)} ${round.getCpuUs.toFixed(1).padStart(22)}\n`,
      );
    });
    printTable([createResult]);
    const ratios = rounds.map((round) => round.get.requestsPerSecond / round.bare.requestsPerSecond);
    const medianBare = median(rounds.map((round) => round.bare.requestsPerSecond));
    process.stdout.write(
      `ratio b/a: median ${median(ratios).toFixed(2)} (min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)} over ${ROUNDS} rounds)  ` +
        `ratio c/a: ${(createResult.requestsPerSecond / medianBare).toFixed(2)} (against the median bare round)\n`,
    );
  } finally {
    await Promise.all(processes.map((spawned) => spawned.stop()));
    await db.destroy();
    await database.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
