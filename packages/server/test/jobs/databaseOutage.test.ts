import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  /** With `socketPath`, it listens on that Unix socket, which is gone while the path is cut (as PostgreSQL's is). */
  constructor(
    private readonly target: net.NetConnectOpts,
    private readonly socketPath?: string,
  ) {}

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
    if (this.socketPath) {
      const socketPath = this.socketPath;
      await new Promise<void>((resolve) => this.server.listen(socketPath, resolve));
      return;
    }
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  cut(): void {
    this.server.close();
    for (const socket of this.sockets) socket.destroy();
  }
}

/** Where the test database listens: a Unix socket (`?host=` a directory) or TCP. */
function targetOf(databaseUrl: string): net.NetConnectOpts {
  const url = new URL(databaseUrl);
  const port = Number(url.port || 5432);
  const socketDirectory = url.searchParams.get('host');
  return socketDirectory?.startsWith('/')
    ? { path: `${socketDirectory}/.s.PGSQL.${port}` }
    : { host: url.hostname, port };
}

describe('the job queue while the database is away', () => {
  let db: Db;
  let path: CuttablePath;
  let workers: Workers | undefined;

  beforeAll(async () => {
    db = connect(inject('databaseUrl'), 2);
    path = new CuttablePath(targetOf(inject('databaseUrl')));
    await path.open();
  });
  afterAll(async () => {
    await workers?.stop();
    path.cut();
    await db.destroy();
  });

  /** A job that fails as the database goes away through `cut` for 2 s is recorded once it is back, and runs again. */
  async function outageDuringJob(cut: CuttablePath, url: string): Promise<void> {
    const task = `test_outage_${randomBytes(4).toString('hex')}`;
    let runs = 0;
    workers = await startWorkers(
      url,
      {
        [task]: async () => {
          runs += 1;
          if (runs > 1) return;
          // The database goes away while the job runs, and comes back 2 s later.
          cut.cut();
          setTimeout(() => void cut.open(), 2_000);
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
    await workers.stop();
    workers = undefined;
  }

  it('records the end of a job that failed as the connection went, once the database is back, and runs it again', async () => {
    const url = new URL(inject('databaseUrl'));
    url.searchParams.delete('host');
    url.host = `127.0.0.1:${path.port}`;
    await outageDuringJob(path, url.toString());
  });

  it('does so too when the database is reached by a Unix socket, which is gone while it is away', async () => {
    const directory = await fs.mkdtemp(join(tmpdir(), 'paygate-socket-'));
    const port = 5499;
    const socket = new CuttablePath(targetOf(inject('databaseUrl')), join(directory, `.s.PGSQL.${port}`));
    await socket.open();
    try {
      const url = new URL(inject('databaseUrl'));
      url.host = `localhost:${port}`;
      url.searchParams.set('host', directory);
      await outageDuringJob(socket, url.toString());
    } finally {
      socket.cut();
      await fs.rm(directory, { recursive: true, force: true });
    }
  });
});
