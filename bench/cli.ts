import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect, migrateToLatest } from '../packages/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { ROOT, startMainnetService } from './support.ts';

const PAYGATE = path.join(ROOT, 'packages/server/bin/paygate.js');
const RUNS = 7;

/** Runs `paygate <args>` once: wall time in ms, exit code and what it wrote on stderr. */
function timed(
  args: string[],
  env: Record<string, string>,
): Promise<{ ms: number; code: number | null; stderr: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [PAYGATE, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('close', (code) => resolve({ ms: performance.now() - started, code, stderr })),
  );
}

async function median(label: string, args: string[], env: Record<string, string>, expectedCode: number) {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const result = await timed(args, env);
    if (result.code !== expectedCode) throw new Error(`${label}: exit ${result.code}: ${result.stderr}`);
    times.push(result.ms);
  }
  times.sort((a, b) => a - b);
  const middle = times[Math.floor(times.length / 2)] as number;
  process.stdout.write(
    `${label.padEnd(52)} median ${(middle / 1000).toFixed(2)} s  (min ${((times[0] as number) / 1000).toFixed(2)}, max ${((times.at(-1) as number) / 1000).toFixed(2)}, ${RUNS} runs)\n`,
  );
}

/**
 * Issue targets for the command line on a busy 2-core machine: `paygate --help` under 0.3 s, a database command
 * under 1 s, and a second start on a port in use failing in under 1 s, naming PORT. Each is a whole process, timed
 * from spawn to exit, median of seven.
 */
export async function runCliBenchmark(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-cli-'));
  const database = await startEmbeddedPostgres(dataDir);
  const db = connect(database.url, 2);
  await migrateToLatest(db, database.url);
  const partner = await createPartner(db, 'Bench partner');
  const service = await startMainnetService(database.url, dataDir, ['eip155:8453']);
  try {
    const env = { DATABASE_URL: database.url };
    process.stdout.write(
      `machine load average: ${os
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}\n`,
    );
    await median('paygate --help', ['--help'], {}, 0);
    await median('paygate --version', ['--version'], {}, 0);
    await median('paygate partner list (DATABASE_URL)', ['partner', 'list'], env, 0);
    await median(
      'paygate key list --partner <id> (DATABASE_URL)',
      ['key', 'list', '--partner', partner.partnerId],
      env,
      0,
    );
    const port = new URL(service.url).port;
    await median(`paygate start on a port in use (PORT=${port})`, ['start'], { ...env, PORT: port }, 1);
  } finally {
    await service.stop();
    await db.destroy();
    await database.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
