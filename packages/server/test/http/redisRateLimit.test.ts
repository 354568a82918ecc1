import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** This file's own Redis server (Debian's redis-server, installed by .ci/run), keeping nothing on disk. */
async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    redis.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    redis.once('error', (error) =>
      reject(new Error(`redis-server could not start (apt-get install redis-server): ${error.message}`)),
    );
    redis.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  return redis;
}

describe('rate limits shared through Redis (REDIS_URL)', () => {
  let redis: ChildProcess;
  let first: TestServer;
  let second: TestServer;
  let partner: TestPartner;
  const merchants = (server: TestServer, apiKey = partner.apiKey) =>
    call(server, '/v1/merchants', { headers: { 'api-key': apiKey } });

  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    const env = { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '60000' };
    [first, second] = await Promise.all([startTestServer({ env }), startTestServer({ env })]);
    partner = await newPartner(first.db);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    redis?.kill('SIGKILL');
  });

  it('counts one key across every service process', async () => {
    const statuses: number[] = [];
    for (const server of [first, second, first, second, first, second]) statuses.push((await merchants(server)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const refused = await merchants(second);
    expect(expectErrorBody(refused).code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = await newPartner(first.db, 'Another partner');
    expect((await merchants(second, other.apiKey)).status).toBe(200);
  });

  it('keeps serving without limits when Redis goes away rather than failing requests', async () => {
    const exited = new Promise((resolve) => redis.once('exit', resolve));
    redis.kill('SIGKILL');
    await exited;
    const other = await newPartner(first.db, 'After Redis');
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) statuses.push((await merchants(first, other.apiKey)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
  });
});
