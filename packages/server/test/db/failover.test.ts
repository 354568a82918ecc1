import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainFollowers } from '../../src/chains/chainFollowers.ts';
import { connect, type Db, migrateToLatest } from '../../src/db/database.ts';
import { isDatabaseUnavailable } from '../../src/db/databaseUnavailable.ts';
import { DatabaseNotifications } from '../../src/db/notifications.ts';
import { enqueueJob, startWorkers, type Workers } from '../../src/jobs/queue.ts';
import { type ReplicatedPostgres, startReplicatedPostgres } from '../support/replicatedPostgres.ts';
import { waitFor } from '../webhooks/support.ts';

/**
 * A primary with a synchronous standby, both named in one URL (`host1,host2?target_session_attrs=read-write`): the
 * primary is killed (SIGKILL to every process of it) and the standby promoted, as an operator's failover does.
 */
describe('database failover to a promoted standby', () => {
  let cluster: ReplicatedPostgres;
  let db: Db;
  let notifications: DatabaseNotifications | undefined;
  let followers: ChainFollowers | undefined;
  let workers: Workers | undefined;

  beforeAll(async () => {
    cluster = await startReplicatedPostgres({ database: 'failover' });
    db = connect(cluster.url, 4);
    await migrateToLatest(db, cluster.url);
  }, 180_000);

  afterAll(async () => {
    await workers?.stop();
    await followers?.stop();
    await notifications?.stop();
    await db?.destroy();
    await cluster?.stop();
  });

  it('keeps every acknowledged commit, fails only as "unavailable" meanwhile, and brings the pool, LISTEN, job workers and chain followers back on the new primary', async () => {
    await sql`CREATE TABLE acknowledged (n int PRIMARY KEY)`.execute(db);
    const channel = `failover_${randomBytes(4).toString('hex')}`;
    const heard: string[] = [];
    notifications = new DatabaseNotifications(cluster.url);
    notifications.subscribe(channel, { notification: (payload) => heard.push(payload) });
    await notifications.start();
    const steps: number[] = [];
    followers = new ChainFollowers(
      cluster.url,
      [
        {
          chain: 'test:failover',
          step: async () => {
            steps.push(Date.now());
            return { nextStepInMs: 100 };
          },
        },
      ],
      { takeoverIntervalMs: 200 },
    );
    const ran: number[] = [];
    let primaryDied: () => void = () => {};
    const died = new Promise<void>((resolve) => {
      primaryDied = resolve;
    });
    let failingRuns = 0;
    workers = await startWorkers(
      cluster.url,
      {
        failover_test: async (payload) => {
          ran.push((payload as { n: number }).n);
        },
        // Fails once the primary is gone: its failure is recorded while no host takes writes, which must wait for
        // the promotion rather than end the process.
        failover_failing: async () => {
          failingRuns += 1;
          if (failingRuns > 1) return;
          await died;
          throw new Error('failed as the primary died');
        },
      },
      { concurrency: 2 },
    );
    await enqueueJob(db, 'failover_test', { n: 1 });
    await waitFor('the first job', () => ran.includes(1));
    await enqueueJob(db, 'failover_failing', {}, { maxAttempts: 3 });
    await waitFor('the failing job to start', () => failingRuns === 1);
    await waitFor('the follower to lead', () => steps.length > 0);

    // Writes run all along, each in its own transaction; the ones the database acknowledged must all survive.
    const acknowledged: number[] = [];
    const failures: unknown[] = [];
    let writing = true;
    const writer = (async () => {
      for (let n = 0; writing; n += 1) {
        try {
          await sql`INSERT INTO acknowledged VALUES (${n})`.execute(db);
          acknowledged.push(n);
        } catch (error) {
          failures.push(error);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await waitFor('some writes', () => acknowledged.length >= 10);
    await cluster.killPrimary();
    const killedAt = Date.now();
    primaryDied();
    const acknowledgedBeforeDeath = acknowledged.length;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await cluster.promoteStandby();
    const promotedAt = Date.now();
    await waitFor('a write on the promoted standby', () => acknowledged.length > acknowledgedBeforeDeath, 30_000);
    const firstWriteAfterMs = Date.now() - promotedAt;
    writing = false;
    await writer;

    const { rows } = await sql<{ n: number }>`SELECT n FROM acknowledged`.execute(db);
    const stored = new Set(rows.map((row) => row.n));
    expect(acknowledged.filter((n) => !stored.has(n))).toEqual([]);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.filter((error) => !isDatabaseUnavailable(error))).toEqual([]);
    expect(firstWriteAfterMs).toBeLessThan(10_000);

    await waitFor('LISTEN again', () => notifications?.connected, 10_000);
    await sql`SELECT pg_notify(${channel}, 'after failover')`.execute(db);
    await waitFor('the notification from the new primary', () => heard.includes('after failover'));

    await waitFor('the follower to lead again', () => steps.some((at) => at > promotedAt), 15_000);

    await enqueueJob(db, 'failover_test', { n: 2 });
    await waitFor('a job added after the failover', () => ran.includes(2), 30_000);
    await waitFor('the failed job to run again', () => failingRuns === 2, 30_000);
    expect(killedAt).toBeLessThan(promotedAt);
  }, 180_000);
});
