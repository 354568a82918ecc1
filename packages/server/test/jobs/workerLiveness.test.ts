import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Db } from '../../src/db/database.ts';
import { enqueueJob, startWorkers, type Workers } from '../../src/jobs/queue.ts';
import { WorkerLiveness } from '../../src/jobs/workerLiveness.ts';
import { waitFor } from '../webhooks/support.ts';

/** The first key of the liveness locks ("payg"). */
const LIVENESS_LOCK_SPACE = 0x70617967;
const HOLDING_WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/holdingWorker.ts');

function spawnHoldingWorker(databaseUrl: string, task: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLDING_WORKER, databaseUrl, task], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('job started')) resolve(child);
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`holding worker exited with ${code}: ${output}`)));
  });
}

describe('jobs of a crashed process', () => {
  let db: Db;
  let liveness: WorkerLiveness;
  let workers: Workers | undefined;
  let child: ChildProcess | undefined;
  const task = `test_hold_${randomBytes(4).toString('hex')}`;
  const lockOf = async () => {
    const { rows } = await sql<{ locked_by: string | null }>`
      SELECT jobs.locked_by FROM graphile_worker._private_jobs AS jobs
      JOIN graphile_worker._private_tasks AS tasks ON tasks.id = jobs.task_id
      WHERE tasks.identifier = ${task}`.execute(db);
    return rows;
  };

  beforeAll(async () => {
    db = connect(inject('databaseUrl'), 2);
    liveness = await WorkerLiveness.start(inject('databaseUrl'), { sweepIntervalMs: 3_600_000, minLockAgeMs: 0 });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await workers?.stop();
    await liveness.stop();
    await db.destroy();
  });

  it('stay locked while the process lives, return to the queue once it dies, and then run elsewhere', async () => {
    await enqueueJob(db, task, {});
    child = await spawnHoldingWorker(inject('databaseUrl'), task);
    const [held] = await lockOf();
    expect(held?.locked_by).toMatch(/^pool-/);

    await liveness.sweep();
    expect(await lockOf()).toEqual([{ locked_by: held?.locked_by }]);

    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    // The job queue alone would leave it locked for 4 hours.
    expect(await lockOf()).toEqual([{ locked_by: held?.locked_by }]);

    await waitFor(
      "the dead worker's job to be unlocked",
      async () => {
        await liveness.sweep();
        return (await lockOf())[0]?.locked_by === null;
      },
      10_000,
    );

    let ran = 0;
    workers = await startWorkers(
      inject('databaseUrl'),
      {
        [task]: async () => {
          ran += 1;
        },
      },
      { concurrency: 1 },
    );
    await waitFor('the job to run in this process', async () => (await lockOf()).length === 0, 10_000);
    expect(ran).toBe(1);
  });

  it('takes its locks again after its connection is cut (PostgreSQL restarted), so its pools count as alive again', async () => {
    const own = await WorkerLiveness.start(inject('databaseUrl'), { sweepIntervalMs: 3_600_000, minLockAgeMs: 0 });
    const poolId = `pool-test-${randomBytes(4).toString('hex')}`;
    const holder = async () => {
      const { rows } = await sql<{ pid: number }>`
        SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
          AND classid = ${LIVENESS_LOCK_SPACE}::int4::oid AND objid = hashtext(${poolId})::oid`.execute(db);
      return rows[0]?.pid;
    };
    try {
      await own.hold(poolId);
      const first = await holder();
      expect(first).toBeGreaterThan(0);
      await sql`SELECT pg_terminate_backend(${first}::int)`.execute(db);
      await waitFor('the lock to go with its connection', async () => (await holder()) === undefined, 10_000);
      const again = await waitFor(
        'the lock to be taken again',
        async () => {
          await own.sweep().catch(() => {});
          return (await holder()) ?? false;
        },
        10_000,
      );
      expect(again).not.toBe(first);
    } finally {
      await own.stop();
    }
    expect(await holder()).toBeUndefined();
  });
});
