import { type ChildProcess, spawn } from 'node:child_process';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import fs from 'node:fs/promises';
import { type Devnet, startDevnet } from '@paygate/devnet';
import { generatePrivateKey } from 'viem/accounts';
import { rpcUrlVariable } from '../packages/server/src/chains/chainConfig.ts';
import { collectorAddresses } from '../packages/server/src/chains/collectorKeys.ts';
import { networksFromDevnet } from '../packages/server/src/chains/devnetNetworks.ts';
import { connect, type Db, migrateToLatest } from '../packages/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { recordFunding } from '../packages/server/src/ledger/funding.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The value at `fraction` (0..1) of ascending `sorted` values, nearest rank; NaN when there are none. */
export function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;
}

export interface Spawned {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a process and waits for the URL it prints when listening. */
export async function spawnListening(args: string[], env: Record<string, string>, pattern: RegExp): Promise<Spawned> {
  const { BASE_URL: _unused, ...inherited } = process.env;
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) resolve(match[1] as string);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * `paygate start` on the given database, quiet and without rate limits, with the settings `env` adds.
 * `BENCH_SERVICE_NODE_ARGS` passes Node.js options to the service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to
 * profile it (Node refuses `--cpu-prof` in `NODE_OPTIONS`).
 */
export function startBenchService(databaseUrl: string, dataDir: string, env: Record<string, string>): Promise<Spawned> {
  const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  return spawnListening(
    [...nodeArgs, path.join(ROOT, 'packages/server/bin/paygate.js'), 'start'],
    {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '1000000000',
      PAYMENT_RATE_LIMIT_MAX: '1000000000',
      DEMO_PARTNER: 'never',
      ...env,
    },
    /paygate listening at (http:\/\/\S+)/,
  );
}

/**
 * `paygate start` on the devnet's networks (a JSON `CHAINS` file) with its fixed prices and a fresh collector, whose
 * funding by the faucet is recorded as the operator's (the collector's network fees are paid out of it).
 */
export async function startDevnetBenchService(
  devnet: Devnet,
  dataDir: string,
  databaseUrl: string,
  db: Db,
): Promise<Spawned> {
  const keys = { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') };
  const collector = await collectorAddresses(keys);
  await recordFunding(db, await devnet.fund({ evm: [collector.evm], solana: [collector.solana] }));
  const chainsFile = path.join(dataDir, 'chains.json');
  await fs.writeFile(chainsFile, JSON.stringify(networksFromDevnet(devnet.manifest)));
  return startBenchService(databaseUrl, dataDir, {
    CHAINS: chainsFile,
    PRICE_SOURCE: 'fixed',
    COLLECTOR_EVM_PRIVATE_KEY: keys.evmPrivateKey,
    COLLECTOR_SOLANA_SEED: keys.solanaSeedHex,
  });
}

/**
 * `paygate start` as in production: the mainnet token registry and no local chains, so nothing but the measured
 * requests runs in the process. No path measured calls an RPC or moves funds, so the RPC URLs point nowhere and
 * the collector keys are throw-away.
 */
export function startMainnetService(databaseUrl: string, dataDir: string, networks: string[]): Promise<Spawned> {
  return startBenchService(databaseUrl, dataDir, {
    CHAINS: 'mainnet',
    ...Object.fromEntries(networks.map((network) => [rpcUrlVariable(network), 'http://127.0.0.1:9'])),
    COLLECTOR_EVM_PRIVATE_KEY: `0x${randomBytes(32).toString('hex')}`,
    COLLECTOR_SOLANA_SEED: randomBytes(32).toString('hex'),
  });
}

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** Runs autocannon against one request shape and summarises it. */
export async function load(name: string, options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: 20, duration: 10, ...options });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

export function printTable(rows: LoadResult[]): void {
  process.stdout.write(
    `${'case'.padEnd(34)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)} ${'non-2xx'.padStart(8)}\n`,
  );
  for (const row of rows) {
    process.stdout.write(
      `${row.name.padEnd(34)} ${String(row.requestsPerSecond).padStart(8)} ${String(row.p50Ms).padStart(8)} ${String(row.p99Ms).padStart(8)} ${String(row.errors).padStart(7)} ${String(row.non2xx).padStart(8)}\n`,
    );
  }
}

/** Starts `server` on a free port of 127.0.0.1 and returns its address (`scheme://127.0.0.1:port`). */
export async function listenOnLoopback(server: Server, scheme: 'http' | 'https' = 'http'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server` and every connection it still holds. */
export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * An HTTP server that reads each request's whole body, then hands it to `handle`; a handler that throws loses its
 * connection. Connections stay open a minute between requests, as a node's or a balancer's do.
 */
export function bufferingServer(
  handle: (body: Buffer, request: IncomingMessage, response: ServerResponse) => Promise<void>,
): Server {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      handle(Buffer.concat(chunks), request, response).catch(() => response.destroy());
    });
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

/** A POST of JSON to the service, answered with JSON; any answer but 2xx throws, with its body. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${new URL(url).pathname} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, any>;
}

/** POSTs of a partner's backend: its API key and a fresh Idempotency-Key on each. */
export function partnerPost(baseUrl: string, apiKey: string) {
  return (route: string, body: unknown, headers: Record<string, string> = {}) =>
    postJson(`${baseUrl}${route}`, body, { 'api-key': apiKey, 'idempotency-key': randomUUID(), ...headers });
}

/**
 * A devnet and an embedded PostgreSQL in a temp dir, a partner, and one `paygate start` process on them
 * (`startDevnetBenchService`); `close` stops them all and removes the dir.
 */
export async function startDevnetBench(name: string) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `paygate-bench-${name}-`));
  const devnet = await startDevnet({ dataDir: path.join(dataDir, 'devnet') });
  const database = await startEmbeddedPostgres(dataDir);
  const db = connect(database.url, 2);
  let service: Spawned | undefined;
  const close = async () => {
    await service?.stop();
    await db.destroy();
    await database.stop();
    await devnet.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  try {
    await migrateToLatest(db, database.url);
    const partner = await createPartner(db, 'Bench partner');
    service = await startDevnetBenchService(devnet, dataDir, database.url, db);
    return { devnet, db, partner, service, post: partnerPost(service.url, partner.apiKey), close };
  } catch (error) {
    await close();
    throw error;
  }
}
