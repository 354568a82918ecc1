import pg from 'pg';
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

  private constructor(
    private readonly client: pg.Client,
    private readonly options: Required<Omit<WorkerLivenessOptions, 'onRecovered'>> &
      Pick<WorkerLivenessOptions, 'onRecovered'>,
  ) {}

  static async start(connectionString: string, options: WorkerLivenessOptions = {}): Promise<WorkerLiveness> {
    const client = new pg.Client({ connectionString, application_name: 'paygate worker liveness' });
    await client.connect();
    const liveness = new WorkerLiveness(client, {
      sweepIntervalMs: options.sweepIntervalMs ?? 15_000,
      minLockAgeMs: options.minLockAgeMs ?? 30_000,
      log: options.log ?? silentLogger,
      onRecovered: options.onRecovered,
    });
    client.on('error', (error) => liveness.options.log.warn(`worker liveness connection failed: ${error.message}`));
    liveness.timer = setInterval(() => {
      liveness.sweeping = liveness
        .sweep()
        .catch((error: Error) => liveness.options.log.warn(`worker liveness sweep failed: ${error.message}`));
    }, liveness.options.sweepIntervalMs);
    liveness.timer.unref();
    return liveness;
  }

  /** Marks a worker pool (the name jobs are locked in) of this process as alive for as long as this process's connection lives. */
  async hold(poolId: string): Promise<void> {
    this.ownPools.add(poolId);
    await this.client.query('SELECT pg_advisory_lock($1, hashtext($2))', [LOCK_SPACE, poolId]);
  }

  /** Unlocks the jobs and queues of every worker pool whose advisory lock is free, i.e. whose process is gone. */
  async sweep(): Promise<void> {
    const { rows } = await this.client.query<{ locked_by: string }>(
      `SELECT locked_by FROM graphile_worker._private_jobs WHERE locked_by IS NOT NULL AND locked_at < now() - make_interval(secs => $1)
       UNION
       SELECT locked_by FROM graphile_worker._private_job_queues WHERE locked_by IS NOT NULL AND locked_at < now() - make_interval(secs => $1)`,
      [this.options.minLockAgeMs / 1000],
    );
    const dead: string[] = [];
    for (const { locked_by: poolId } of rows) {
      if (this.ownPools.has(poolId)) continue;
      const taken = await this.client.query<{ free: boolean }>(
        'SELECT pg_try_advisory_lock($1, hashtext($2)) AS free',
        [LOCK_SPACE, poolId],
      );
      if (!taken.rows[0]?.free) continue;
      dead.push(poolId);
      await this.client.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [[poolId]]);
      await this.client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_SPACE, poolId]);
    }
    if (dead.length) this.options.onRecovered?.(dead);
  }

  /** Stops sweeping and releases this process's locks (by closing its connection). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
    await this.client.end();
  }
}
