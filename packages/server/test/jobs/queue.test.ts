import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Db } from '../../src/db/database.ts';
import { enqueueJob, startWorkers } from '../../src/jobs/queue.ts';
import { waitFor } from '../webhooks/support.ts';
import { warningsInto } from '../support/warnings.ts';

describe('stopping the job queue', () => {
  let db: Db;
  beforeAll(() => {
    db = connect(inject('databaseUrl'), 2);
  });
  afterAll(() => db.destroy());

  const connectionsNamed = async (name: string) => {
    const { rows } = await sql<{
      count: string;
    }>`SELECT count(*) FROM pg_stat_activity WHERE application_name = ${name}`.execute(db);
    return Number(rows[0]?.count);
  };

  it('closes every connection of its pool before it returns, so the database can stop right after without an error', async () => {
    const name = `paygate jobs ${randomBytes(4).toString('hex')}`;
    const task = `test_queue_${randomBytes(4).toString('hex')}`;
    const problems: string[] = [];
    let ran = 0;
    const workers = await startWorkers(
      inject('databaseUrl'),
      {
        [task]: async () => {
          ran += 1;
        },
      },
      {
        concurrency: 2,
        applicationName: name,
        log: warningsInto(problems),
      },
    );
    await enqueueJob(db, task, {});
    await waitFor('the job to run', async () => ran === 1, 10_000);
    expect(await connectionsNamed(name)).toBeGreaterThan(0);

    await workers.stop();
    expect(await connectionsNamed(name)).toBe(0);
    expect(problems).toEqual([]);
  });
});
