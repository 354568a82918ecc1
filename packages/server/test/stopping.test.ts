import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { insertMerchantWithPayments } from './support/fixtures.ts';
import { isolatedTestDatabase } from './support/isolatedDatabase.ts';
import { childEnv, NO_CHAIN_ENV, PAYGATE_BIN, startServerProcess } from './support/serverProcess.ts';

interface GroupLeader {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `paygate start` as a terminal runs it: the leader of its own process group, so that a signal to the group reaches
 * every process the terminal's Ctrl-C would reach.
 */
async function startInOwnGroup(env: Record<string, string>): Promise<GroupLeader> {
  const child = spawn(process.execPath, [PAYGATE_BIN, 'start'], {
    env: childEnv({ PORT: '0', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (/paygate listening at/.test(output)) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    void exited.then(({ code }) => {
      clearInterval(timer);
      reject(new Error(`paygate start exited with ${code}:\n${output}`));
    });
  });
  return { child, output: () => output, exited };
}

/** The pid of the postmaster serving `dataDir`'s cluster, from its lock file (gone once it has shut down). */
async function postmasterPid(dataDir: string): Promise<number | undefined> {
  const lockFile = await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => undefined);
  return lockFile ? Number(lockFile.split('\n')[0]) : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether an EVM node answers JSON-RPC at `url`. */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    return response.ok;
  } catch {
    return false;
  }
}

async function waitUntil(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('stopping paygate start', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-stop-'));
  });
  afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('stops on Ctrl-C (SIGINT to its whole process group) with a short clean log, PostgreSQL last and cleanly', async () => {
    // The quick start: an empty DATA_DIR, the embedded PostgreSQL and the devnet.
    const service = await startInOwnGroup({ DATA_DIR: dataDir, CHAINS: 'devnet' });
    // The demo partner's key (on stderr) and the migrations' log line (on stdout) are the last things a start on a
    // new database prints; the two pipes reach us in either order.
    await waitUntil(
      () => /API docs: /.test(service.output()) && /"msg":"database migrated"/.test(service.output()),
      'the demo partner and the migrations are announced',
    );
    const postmaster = await postmasterPid(dataDir);
    expect(postmaster).toBeGreaterThan(0);
    const before = service.output().length;

    process.kill(-service.child.pid!, 'SIGINT');
    const { code } = await service.exited;

    const log = service.output().slice(before);
    expect(code, log).toBe(0);
    expect(log).not.toMatch(/FATAL|PANIC|terminating connection|shutting down/);
    // JSON log lines only (nothing from PostgreSQL or anvil), none of them a warning or an error.
    const entries = log
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(entries.at(0)?.msg).toBe('stopping: finishing requests, then background work, then the database');
    expect(entries.at(-1)?.msg).toBe('stopped');
    expect(entries.filter((entry) => entry.level >= 40)).toEqual([]);
    // PostgreSQL shut down by the service, not killed: its lock file is removed only at the end of a clean shutdown.
    expect(await postmasterPid(dataDir)).toBeUndefined();
    expect(alive(postmaster!)).toBe(false);
  });

  it('stops on SIGTERM to the service alone, and PostgreSQL with it', async () => {
    const service = await startInOwnGroup({ DATA_DIR: dataDir, ...NO_CHAIN_ENV, LOG_LEVEL: 'error' });
    const postmaster = await postmasterPid(dataDir);
    service.child.kill('SIGTERM');
    expect((await service.exited).code, service.output()).toBe(0);
    expect(service.output()).not.toMatch(/FATAL|PANIC/);
    expect(await postmasterPid(dataDir)).toBeUndefined();
    expect(alive(postmaster!)).toBe(false);
  });

  it('stops at once on SIGTERM while a long-poll holds a keep-alive connection: answered, its connection closed', async () => {
    const { url, db } = await isolatedTestDatabase();
    const partner = await insertMerchantWithPayments(db, 'mrch_stopping', ['pay_stopping']);
    const service = await startServerProcess({ DATABASE_URL: url, DEMO_PARTNER: 'never' });
    // A load balancer's connections: kept open between requests.
    const agent = new http.Agent({ keepAlive: true });
    onTestFinished(() => agent.destroy());
    const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get(
          `${service.url}/v1/gateway/payment/pay_stopping/status?maxPollMs=25000`,
          { agent, headers: { 'api-key': partner.apiKey } },
          (answer) => answer.resume().on('end', () => resolve(answer)),
        )
        .on('error', reject);
    });
    await sleep(1_000);
    const stoppedAt = Date.now();
    const code = await service.stop();
    const answer = await answered;
    expect(code, service.output()).toBe(0);
    // Well within the 20 s after which a stop that hangs ends with exit code 1.
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers.connection).toBe('close');
  });

  it('does not leave its PostgreSQL or devnet chains running when it is killed outright (SIGKILL)', async () => {
    const service = await startInOwnGroup({ DATA_DIR: dataDir, CHAINS: 'devnet', LOG_LEVEL: 'error' });
    const postmaster = await postmasterPid(dataDir);
    expect(postmaster).toBeGreaterThan(0);
    const manifest = JSON.parse(await fs.readFile(path.join(dataDir, 'devnet', 'manifest.json'), 'utf8'));
    const rpcUrls: string[] = manifest.evm.map((chain: { rpcUrl: string }) => chain.rpcUrl);
    expect(await Promise.all(rpcUrls.map(answers))).toEqual(rpcUrls.map(() => true));

    service.child.kill('SIGKILL');
    expect((await service.exited).signal).toBe('SIGKILL');
    // Their pipes to the service closed with the service, so PostgreSQL and anvil stop by themselves, cleanly.
    await waitUntil(() => !alive(postmaster!), 'the orphaned postmaster has stopped');
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    await waitUntil(
      async () => (await Promise.all(rpcUrls.map(answers))).every((answered) => !answered),
      'the orphaned anvil nodes have stopped',
    );

    // The next start finds the cluster stopped and starts it again.
    const next = await startInOwnGroup({ DATA_DIR: dataDir, ...NO_CHAIN_ENV, LOG_LEVEL: 'error' });
    expect(await postmasterPid(dataDir)).not.toBe(postmaster);
    next.child.kill('SIGTERM');
    expect((await next.exited).code).toBe(0);
  });
});
