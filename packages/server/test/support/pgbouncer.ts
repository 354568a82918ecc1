import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface PgBouncer {
  /** The database through PgBouncer, in transaction pooling mode. */
  url: string;
  /** Rows of an admin console command (`SHOW STATS`, `SHOW POOLS`). */
  admin(command: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Debian's PgBouncer in front of `databaseUrl` in transaction mode, as production runs many processes through it,
 * with `serverConnections` connections to PostgreSQL. It refuses to run as root, so it runs as the `postgres` user
 * the embedded PostgreSQL made.
 */
export async function startPgBouncer(databaseUrl: string, serverConnections = 10): Promise<PgBouncer> {
  const target = new URL(databaseUrl);
  const database = target.pathname.slice(1);
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-pgbouncer-'));
  await fs.chmod(dir, 0o755);
  const port = await freePort();
  const quoted = (value: string) => `"${value.replaceAll('"', '""')}"`;
  await fs.writeFile(path.join(dir, 'userlist.txt'), `${quoted(user)} ${quoted(password)}\n`, { mode: 0o644 });
  await fs.writeFile(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${target.hostname === 'localhost' ? '127.0.0.1' : target.hostname} port=${target.port || 5432} dbname=${database} user=${user} password=${password}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      "unix_socket_dir = ''",
      'auth_type = md5',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      `default_pool_size = ${serverConnections}`,
      'ignore_startup_parameters = extra_float_digits,options',
    ].join('\n'),
    { mode: 0o644 },
  );
  const child: ChildProcess = spawn('/usr/sbin/pgbouncer', ['-u', 'postgres', path.join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Its log goes to stderr: kept for the error that says why it did not start.
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const url = `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  const adminUrl = `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/pgbouncer`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new pg.Client({ connectionString: url });
    try {
      await probe.connect();
      await probe.query('SELECT 1');
      await probe.end();
      break;
    } catch (error) {
      await probe.end().catch(() => {});
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`PgBouncer did not start: ${(error as Error).message}\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    admin: async (command) => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        return (await client.query(command)).rows;
      } finally {
        await client.end();
      }
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await exited;
      }
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
