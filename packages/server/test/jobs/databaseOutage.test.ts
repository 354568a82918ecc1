import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Db } from '../../src/db/database.ts';
import { enqueueJob, startWorkers, type Workers } from '../../src/jobs/queue.ts';
import { waitFor } from '../webhooks/support.ts';

/**
 * A TCP path to the test database that can be cut, as a PostgreSQL restart cuts it: every connection dropped and new
 * ones refused until it is opened again on the same port.
 */
class CuttablePath {
  private server = net.createServer();
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: net.NetConnectOpts) {}

  async open(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  cut(): void {
    this.server.close();
    for (const socket of this.sockets) socket.destroy();
  }
}

describe('the job queue while the database is away', () => {
  let db: Db;
  let path: CuttablePath;
  let workers: Workers | undefined;

  beforeAll(async () => {
    db = connect(inject('databaseUrl'), 2);
    // The test database may listen on a Unix socket (`?host=` a directory) or on TCP.
    const url = new URL(inject('databaseUrl'));
    const port = Number(url.port || 5432);
    const socketDirectory = url.searchParams.get('host');
    path = new CuttablePath(
      socketDirectory?.startsWith('/') ? { path: `${socketDirectory}/.s.PGSQL.${port}` } : { host: url.hostname, port },
    );
    await path.open();
  });
  afterAll(async () => {
    await workers?.stop();
    path.cut();
    await db.destroy();
  });

  it('records the end of a job that failed as the connection went, once the database is back, and runs it again', async () => {
    const task = `test_outage_${randomBytes(4).toString('hex')}`;
    let runs = 0;
    const url = new URL(inject('databaseUrl'));
    url.searchParams.delete('host');
    url.host = `127.0.0.1:${path.port}`;
    workers = await startWorkers(
      url.toString(),
      {
        [task]: async () => {
          runs += 1;
          if (runs > 1) return;
          // The database goes away while the job runs, and comes back 2 s later.
          path.cut();
          setTimeout(() => void path.open(), 2_000);
          throw new Error('failed while the database was away');
        },
      },
      { concurrency: 1, liveness: { sweepIntervalMs: 3_600_000 } },
    );
    await enqueueJob(db, task, {}, { maxAttempts: 3 });
    await waitFor(
      'the job to run again and complete',
      async () => {
        const { rows } = await sql<{ id: string }>`
          SELECT jobs.id FROM graphile_worker._private_jobs AS jobs
          JOIN graphile_worker._private_tasks AS tasks ON tasks.id = jobs.task_id
          WHERE tasks.identifier = ${task}`.execute(db);
        return runs === 2 && rows.length === 0;
      },
      30_000,
    );
    expect(runs).toBe(2);
  });
});
