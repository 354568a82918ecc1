import type pg from 'pg';
import { sessionClient } from '../db/databaseHosts.ts';
import { type Logger, silentLogger } from '../log.ts';

/** First key of every worker's advisory lock, so they never collide with other advisory locks. */
const LOCK_SPACE = 0x70617967; // "payg"

export interface WorkerLivenessOptions {
  /** How often locked jobs are checked for a dead owner. */
  sweepIntervalMs?: number;
  /**
   * Jobs locked more recently than this are left alone: a pool may lock a job in the moment between its creation
   * and taking its advisory lock.
   */
  minLockAgeMs?: number;
  log?: Logger;
  /** Called with the worker pool ids whose jobs were returned to the queue. */
  onRecovered?: (poolIds: string[]) => void;
}

/**
 * Returns the jobs of crashed processes to the queue at once instead of after the job queue's 4-hour lock timeout.
 * Each worker pool holds a session advisory lock on this process's own connection; PostgreSQL drops it the moment the
 * process or its connection dies, so a lock that can be taken belongs to a dead pool.
 */
export class WorkerLiveness {
  private readonly ownPools = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> = Promise.resolve();
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private stopped = false;

  private constructor(
    private readonly connectionString: string,
    private readonly options: Required<Omit<WorkerLivenessOptions, 'onRecovered'>> &
      Pick<WorkerLivenessOptions, 'onRecovered'>,
  ) {}

  static async start(connectionString: string, options: WorkerLivenessOptions = {}): Promise<WorkerLiveness> {
    const liveness = new WorkerLiveness(connectionString, {
      sweepIntervalMs: options.sweepIntervalMs ?? 15_000,
      minLockAgeMs: options.minLockAgeMs ?? 30_000,
      log: options.log ?? silentLogger,
      onRecovered: options.onRecovered,
    });
    await liveness.connection();
    liveness.timer = setInterval(() => {
      liveness.sweeping = liveness
        .sweep()
        .catch((error: Error) => liveness.options.log.warn(`worker liveness sweep failed: ${error.message}`));
    }, liveness.options.sweepIntervalMs);
    liveness.timer.unref();
    return liveness;
  }

  /**
   * The connection that holds this process's locks. When it breaks (PostgreSQL restarted) the locks are gone with
   * it: the next use connects again and takes every pool's lock again, so the pools count as alive once more.
   */
  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = sessionClient(this.connectionString, { application_name: 'paygate worker liveness' });
      const lost = (why: string) => {
        if (this.client !== client) return;
        this.client = undefined;
        if (!this.stopped)
          this.options.log.warn(`worker liveness connection lost (${why}); taken again at the next sweep`);
      };
      client.on('error', (error) => lost(error.message));
      client.on('end', () => lost('closed'));
      try {
        await client.connect();
        for (const poolId of this.ownPools) await lockPool(client, poolId);
        this.client = client;
        return client;
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  /** Marks a worker pool (the name jobs are locked in) of this process as alive for as long as this process's connection lives. */
  async hold(poolId: string): Promise<void> {
    this.ownPools.add(poolId);
    await lockPool(await this.connection(), poolId);
  }

  /** Unlocks the jobs and queues of every worker pool whose advisory lock is free, i.e. whose process is gone. */
  async sweep(): Promise<void> {
    const client = await this.connection();
    const { rows } = await client.query<{ locked_by: string }>(
      `SELECT locked_by FROM graphile_worker._private_jobs WHERE locked_by IS NOT NULL AND locked_at < now() - make_interval(secs => $1)
       UNION
       SELECT locked_by FROM graphile_worker._private_job_queues WHERE locked_by IS NOT NULL AND locked_at < now() - make_interval(secs => $1)`,
      [this.options.minLockAgeMs / 1000],
    );
    const dead: string[] = [];
    for (const { locked_by: poolId } of rows) {
      if (this.ownPools.has(poolId)) continue;
      const taken = await client.query<{ free: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS free', [
        LOCK_SPACE,
        poolId,
      ]);
      if (!taken.rows[0]?.free) continue;
      dead.push(poolId);
      await client.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [[poolId]]);
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_SPACE, poolId]);
    }
    if (dead.length) this.options.onRecovered?.(dead);
  }

  /** Stops sweeping and releases this process's locks (by closing its connection). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.sweeping;
    await this.connecting?.catch(() => undefined);
    await this.client?.end();
  }
}

function lockPool(client: pg.Client, poolId: string): Promise<unknown> {
  return client.query('SELECT pg_advisory_lock($1, hashtext($2))', [LOCK_SPACE, poolId]);
}
