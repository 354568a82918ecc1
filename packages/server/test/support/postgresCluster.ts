import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The newest PostgreSQL of the machine's own packages (Debian's `postgresql-<n>`, in `/usr/lib/postgresql/<n>/bin`),
 * 15 or newer: its server and its client tools (pg_basebackup, pg_dump) are of one version, as a backup and the
 * server it is taken from must be. The embedded PostgreSQL package ships no client tools.
 */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .map(Number)
        .filter((version) => version >= 15 && existsSync(path.join(root, String(version), 'bin', 'pg_basebackup')))
        .sort((a, b) => b - a)
    : [];
  const newest = versions[0];
  if (newest === undefined) throw new Error('no PostgreSQL 15 or newer with pg_basebackup in /usr/lib/postgresql');
  return path.join(root, String(newest), 'bin');
}

const asRoot = process.getuid?.() === 0;

/** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user. */
async function postgresUser(): Promise<{ uid?: number; gid?: number }> {
  if (!asRoot) return {};
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Runs one of PostgreSQL's programs as the user its clusters belong to; throws with its output when it fails. */
export async function runPostgresTool(tool: string, args: string[]): Promise<string> {
  const user = await postgresUser();
  try {
    const { stdout, stderr } = await run(path.join(postgresBinDir(), tool), args, {
      ...user,
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
    return stdout + stderr;
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`${tool} ${args.join(' ')} failed: ${failed.stderr ?? ''}${failed.stdout ?? ''}`);
  }
}

/** A folder that PostgreSQL's user owns (as root), made when missing. */
export async function postgresFolder(folder: string): Promise<string> {
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  const { uid, gid } = await postgresUser();
  if (uid !== undefined && gid !== undefined) await fs.chown(folder, uid, gid);
  return folder;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export const CLUSTER_USER = 'paygate';
const CLUSTER_DATABASE = 'paygate';

export interface PostgresCluster {
  dir: string;
  port: number;
  /** A URL of the cluster's database over TCP on 127.0.0.1 (trust authentication, for tests only). */
  url: string;
  stop(): Promise<void>;
}

/** A new cluster in `dir` (initdb) with the user and database the service uses, its connections trusted. */
export async function initCluster(dir: string): Promise<void> {
  await postgresFolder(dir);
  await runPostgresTool('initdb', ['-D', dir, '-U', CLUSTER_USER, '--auth=trust', '--encoding=UTF8', '--no-sync']);
}

/** Appends server settings to the cluster's `postgresql.conf`: a setting written later wins over an earlier one. */
export async function configureCluster(dir: string, settings: Record<string, string>): Promise<void> {
  const lines = Object.entries(settings).map(([name, value]) => `${name} = '${value.replaceAll("'", "''")}'`);
  await fs.appendFile(path.join(dir, 'postgresql.conf'), `\n${lines.join('\n')}\n`);
}

/**
 * Starts the cluster in `dir` on a free port of 127.0.0.1 (no unix socket) and waits until it accepts connections.
 * A cluster restored from a backup with `recovery.signal` accepts them (read only) while it still replays WAL.
 */
export async function startCluster(dir: string): Promise<PostgresCluster> {
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=`;
  await runPostgresTool('pg_ctl', [
    'start',
    '-w',
    '-t',
    '120',
    '-D',
    dir,
    '-l',
    path.join(dir, 'server.log'),
    '-o',
    options,
  ]);
  return {
    dir,
    port,
    url: `postgres://${CLUSTER_USER}@127.0.0.1:${port}/${CLUSTER_DATABASE}`,
    stop: async () => {
      await runPostgresTool('pg_ctl', ['stop', '-m', 'fast', '-w', '-D', dir]).catch(() => {});
    },
  };
}

/** The service's database in a new cluster. */
export async function createClusterDatabase(cluster: PostgresCluster): Promise<void> {
  await runPostgresTool('createdb', [
    '-h',
    '127.0.0.1',
    '-p',
    String(cluster.port),
    '-U',
    CLUSTER_USER,
    CLUSTER_DATABASE,
  ]);
}

/** What the server logged (its `server.log`), for a failure's message. */
export function clusterLog(cluster: PostgresCluster): Promise<string> {
  return fs.readFile(path.join(cluster.dir, 'server.log'), 'utf8').catch(() => '');
}
