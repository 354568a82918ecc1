import { EventEmitter } from 'node:events';
import {
  Logger as JobQueueLogger,
  run,
  runMigrations,
  type Runner,
  type TaskList,
  type WorkerEvents,
} from 'graphile-worker';
import { RETRYABLE_ERROR_CODES } from 'graphile-worker/dist/lib.js';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { clientOptions } from '../db/databaseHosts.ts';
import type { Database } from '../db/schema.ts';
import { WorkerLiveness, type WorkerLivenessOptions } from './workerLiveness.ts';
import { type Logger, silentLogger } from '../log.ts';

export type { TaskList };

/**
 * What the job queue retries, with a growing wait, when it records a job's end: graphile-worker retries only
 * serialization failures, deadlocks and a few network codes, and its worker does not wait for that record, so a
 * connection lost meanwhile (PostgreSQL restarting) was an unhandled rejection that ended the process. A connection
 * refused, reset, cut mid-write, ended by a shutting-down server, refused while it starts or stops (57P03), a
 * Unix socket gone while the server is down (ENOENT), or no host of several taking writes while a standby is not
 * promoted yet (08001) is retried until the database is back.
 */
const CONNECTION_LOST_CODES = [
  '08001',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOENT',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
];
for (const code of CONNECTION_LOST_CODES) RETRYABLE_ERROR_CODES[code] ??= { minDelay: 500, maxDelay: 30_000 };

/** node-postgres' client for the job queue's pool: a query cut off by its connection's end says so with a code. */
class JobQueueClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: the overloads of pg's query are passed through unchanged.
  override query(config: any, values?: any, callback?: any): any {
    const result: unknown = super.query(config, values, callback);
    if (!(result instanceof Promise)) return result;
    return result.catch((error: Error & { code?: string }) => {
      if (error.code === undefined && error.message.startsWith('Connection terminated')) error.code = 'ECONNRESET';
      throw error;
    });
  }
}

export interface JobOptions {
  runAt?: Date;
  /** Replaces a pending job with the same key instead of adding another. */
  jobKey?: string;
  maxAttempts?: number;
  queueName?: string;
}

/**
 * Adds a background job through the given connection or transaction, so that a job enqueued inside a state
 * change's transaction exists exactly when the change commits.
 */
export async function enqueueJob(
  db: Kysely<Database>,
  task: string,
  payload: object,
  options: JobOptions = {},
): Promise<void> {
  await sql`SELECT graphile_worker.add_job(
    identifier => ${task},
    payload => ${JSON.stringify(payload)}::json,
    queue_name => ${options.queueName ?? null},
    run_at => ${options.runAt?.toISOString() ?? null}::timestamptz,
    max_attempts => ${options.maxAttempts ?? null}::int,
    job_key => ${options.jobKey ?? null}
  )`.execute(db);
}

/** How many jobs of one task wait, run or were given up, and how long the oldest due one has waited. */
export interface JobQueueDepth {
  task: string;
  /** Due and not taken by a worker. */
  due: number;
  /** To run later: retries waiting out their backoff, or jobs added for a later time. */
  scheduled: number;
  /** Taken by a worker now. */
  running: number;
  /** Out of attempts: the queue keeps them, and never runs them again. */
  givenUp: number;
  /** Since when the oldest due job has been due. */
  oldestDueAt: Date | null;
}

/**
 * The job queue per task, read from its own view: a job that ends well is deleted, so the queue only ever holds
 * what is still to do, what runs and what was given up.
 */
export async function jobQueueDepths(db: Kysely<Database>): Promise<JobQueueDepth[]> {
  const { rows } = await sql<{
    task: string;
    due: number;
    scheduled: number;
    running: number;
    given_up: number;
    oldest_due_at: Date | null;
  }>`
    SELECT task_identifier AS task,
      count(*) FILTER (WHERE attempts < max_attempts AND locked_at IS NULL AND run_at <= now())::int AS due,
      count(*) FILTER (WHERE attempts < max_attempts AND locked_at IS NULL AND run_at > now())::int AS scheduled,
      count(*) FILTER (WHERE locked_at IS NOT NULL)::int AS running,
      count(*) FILTER (WHERE attempts >= max_attempts AND locked_at IS NULL)::int AS given_up,
      min(run_at) FILTER (WHERE attempts < max_attempts AND locked_at IS NULL AND run_at <= now()) AS oldest_due_at
    FROM graphile_worker.jobs
    GROUP BY task_identifier
    ORDER BY task_identifier
  `.execute(db);
  return rows.map((row) => ({
    task: row.task,
    due: row.due,
    scheduled: row.scheduled,
    running: row.running,
    givenUp: row.given_up,
    oldestDueAt: row.oldest_due_at,
  }));
}

/** Installs or upgrades the job queue's own schema, through a pool of ours (which finds the writable host). */
export async function migrateJobQueue(connectionString: string): Promise<void> {
  const pgPool = new pg.Pool({ ...clientOptions(connectionString), max: 2 });
  // A connection lost meanwhile fails the migration's query, which is reported; the pool itself must not crash.
  pgPool.on('error', () => {});
  pgPool.on('connect', (client) => client.on('error', () => {}));
  try {
    await runMigrations({ pgPool, logger: new JobQueueLogger(() => () => {}) });
  } finally {
    await pgPool.end();
  }
}

export interface Workers {
  stop(): Promise<void>;
}

/**
 * Runs the task list in this process; every process runs workers, and jobs are claimed through the database. Jobs
 * left locked by a process that died are returned to the queue by the other processes (see WorkerLiveness).
 */
export async function startWorkers(
  connectionString: string,
  taskList: TaskList,
  options: {
    concurrency?: number;
    log?: Logger;
    liveness?: WorkerLivenessOptions;
    /** How the queue's connections appear in pg_stat_activity. */
    applicationName?: string;
  } = {},
): Promise<Workers> {
  const log = options.log ?? silentLogger;
  const liveness = await WorkerLiveness.start(connectionString, { log, ...options.liveness });
  const events: WorkerEvents = new EventEmitter();
  // Jobs are locked in the name of the worker pool, not of its individual workers.
  events.on('pool:create', ({ workerPool }) => {
    liveness
      .hold(workerPool.id)
      .catch((error: Error) =>
        log.warn(`worker pool ${workerPool.id} could not take its liveness lock: ${error.message}`),
      );
  });
  // The pool is ours, not the runner's: the runner ends its own pool without waiting for its connections to close,
  // after dropping its error handler, so a database stopping right after the workers would crash the process.
  const pool = new pg.Pool({
    ...clientOptions(connectionString, JobQueueClient),
    application_name: options.applicationName ?? 'paygate jobs',
    max: (options.concurrency ?? 4) + 6,
  });
  const closing = new Set<Promise<void>>();
  let stopping = false;
  const poolProblem = (error: Error) => {
    if (!stopping) log.warn(`job queue connection: ${error.message}`);
  };
  pool.on('error', poolProblem);
  pool.on('connect', (client) => {
    client.on('error', poolProblem);
    const closed = new Promise<void>((resolve) => client.once('end', () => resolve()));
    closing.add(closed);
    void closed.then(() => closing.delete(closed));
  });
  const endPool = async () => {
    stopping = true;
    await pool.end();
    await Promise.all(closing);
  };
  let runner: Runner;
  try {
    runner = await run({
      pgPool: pool,
      logger: new JobQueueLogger(() => (level, message) => {
        if (level === 'error' || level === 'warning') log.warn(message);
      }),
      taskList,
      concurrency: options.concurrency ?? 4,
      pollInterval: 1000,
      noHandleSignals: true,
      noPreparedStatements: false,
      events,
    });
  } catch (error) {
    await liveness.stop();
    await endPool();
    throw error;
  }
  return {
    stop: async () => {
      await runner.stop();
      await endPool();
      await liveness.stop();
    },
  };
}
