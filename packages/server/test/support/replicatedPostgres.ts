import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { type Postmaster, postgresUser, startPostmaster } from '../../src/db/embeddedPostgres.ts';

const run = promisify(execFile);
const USER = 'paygate';

/**
 * A primary PostgreSQL and a standby that streams from it with synchronous replication (every commit is on the
 * standby before the primary answers it), on free ports in a temporary folder, made with the machine's PostgreSQL
 * binaries: pg_basebackup ships with Debian's PostgreSQL, not with the embedded one.
 */
export interface ReplicatedPostgres {
  /** Both servers, primary first, for a connection that must reach the writable one. */
  url: string;
  primaryUrl: string;
  standbyUrl: string;
  /** SIGKILL to the primary's postmaster and every process of it, as a machine's death; resolves once they are gone. */
  killPrimary(): Promise<void>;
  /** `pg_ctl promote`: resolves once the standby takes writes. */
  promoteStandby(): Promise<void>;
  stop(): Promise<void>;
}

/** The newest PostgreSQL binaries Debian installed (`postgresql` package), which hold pg_basebackup. */
export function machinePostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(path.join(root, name, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The pids whose parent is `pid`, read from /proc. */
async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The command name is in parentheses and may hold spaces: the parent pid is the second field after it.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === pid) children.push(Number(entry));
  }
  return children;
}

/** Whether `pid` still runs: gone, or a zombie its new parent has not reaped yet, is not. */
async function isRunning(pid: number): Promise<boolean> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

export async function startReplicatedPostgres(
  options: { database?: string; log?: (line: string) => void } = {},
): Promise<ReplicatedPostgres> {
  const bin = machinePostgresBin();
  if (!bin) throw new Error('no PostgreSQL with pg_basebackup in /usr/lib/postgresql (Debian package postgresql)');
  const database = options.database ?? 'paygate';
  const log = options.log ?? (() => {});
  const asRoot = process.getuid?.() === 0;
  const user = await postgresUser(asRoot);
  const asPostgres = { ...user, env: { ...process.env, LC_MESSAGES: 'C' } };
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-replicated-'));
  if (asRoot) await fs.chown(dir, user.uid as number, user.gid as number);
  const primaryDir = path.join(dir, 'primary');
  const standbyDir = path.join(dir, 'standby');
  const password = randomBytes(18).toString('base64url');
  const passwordFile = path.join(dir, 'password');
  await fs.writeFile(passwordFile, password, { mode: 0o600 });
  if (asRoot) await fs.chown(passwordFile, user.uid as number, user.gid as number);
  await run(
    path.join(bin, 'initdb'),
    [
      '-D',
      primaryDir,
      '-U',
      USER,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '-E',
      'UTF8',
      '--no-instructions',
    ],
    asPostgres,
  );
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const urlOf = (hosts: string, name: string) => `postgresql://${USER}:${password}@${hosts}/${name}`;
  const common = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'];
  const postgres = path.join(bin, 'postgres');
  const primary: Postmaster = await startPostmaster(
    primaryDir,
    ['-D', primaryDir, '-p', String(primaryPort), ...common],
    asRoot,
    (line) => log(`primary: ${line}`),
    postgres,
  );
  let standby: Postmaster | undefined;
  const stop = async () => {
    await standby?.stop();
    await primary.stop();
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    await query(urlOf(`127.0.0.1:${primaryPort}`, 'postgres'), `CREATE DATABASE "${database}"`);
    await run(
      path.join(bin, 'pg_basebackup'),
      ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', USER, '-D', standbyDir, '-R', '-X', 'stream', '-c', 'fast'],
      { ...asPostgres, env: { ...asPostgres.env, PGPASSWORD: password } },
    );
    // The standby is started without synchronous_standby_names: once promoted, it has no standby to wait for.
    standby = await startPostmaster(
      standbyDir,
      ['-D', standbyDir, '-p', String(standbyPort), ...common],
      asRoot,
      (line) => log(`standby: ${line}`),
      postgres,
    );
    const primaryUrl = urlOf(`127.0.0.1:${primaryPort}`, database);
    // Synchronous from now on, on the primary alone (set earlier, its own commits would wait for a standby not yet
    // there; copied to the standby, a promoted standby would wait for one that never comes).
    await query(primaryUrl, "ALTER SYSTEM SET synchronous_standby_names = '*'");
    await query(primaryUrl, 'SELECT pg_reload_conf()');
    const deadline = Date.now() + 30_000;
    while (
      (await query<{ sync_state: string }>(primaryUrl, 'SELECT sync_state FROM pg_stat_replication'))[0]?.sync_state !==
      'sync'
    ) {
      if (Date.now() > deadline) throw new Error('the standby did not become synchronous in 30 s');
      await sleep(100);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const standbyUrl = urlOf(`127.0.0.1:${standbyPort}`, database);
  return {
    url: `${urlOf(`127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}`, database)}?target_session_attrs=read-write`,
    primaryUrl: urlOf(`127.0.0.1:${primaryPort}`, database),
    standbyUrl,
    killPrimary: async () => {
      const lockFile = await fs.readFile(path.join(primaryDir, 'postmaster.pid'), 'utf8');
      const postmaster = Number(lockFile.split('\n')[0]);
      // Listed first: once the postmaster is gone its children belong to another parent.
      const processes = [postmaster, ...(await childrenOf(postmaster))];
      for (const pid of processes) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch (error) {
          // A session that ended by itself since it was listed.
          if ((error as { code?: string }).code !== 'ESRCH') throw error;
        }
      }
      while ((await Promise.all(processes.map(isRunning))).some(Boolean)) await sleep(10);
    },
    promoteStandby: async () => {
      await run(path.join(bin, 'pg_ctl'), ['promote', '-D', standbyDir, '-w', '-t', '60'], asPostgres);
      const deadline = Date.now() + 30_000;
      while ((await query<{ standby: boolean }>(standbyUrl, 'SELECT pg_is_in_recovery() AS standby'))[0]?.standby) {
        if (Date.now() > deadline) throw new Error('the standby was still in recovery 30 s after its promotion');
        await sleep(50);
      }
    },
    stop,
  };
}
