import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The platform binary, run directly so its own pid is the one we signal (the npm wrapper would not forward it). */
export function anvilBinary(): string {
  const platformPackage = `@foundry-rs/anvil-${process.platform === 'win32' ? 'win32' : process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
  const packageRoot = dirname(require.resolve(`${platformPackage}/package.json`));
  return join(packageRoot, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

// Children still running when this process exits are killed, so a crash or an aborted test run
// does not leave anvil nodes behind.
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) signalGroup(child, 'SIGKILL');
});

/**
 * Runs anvil in a process group of its own, under a small shell: a terminal's Ctrl-C (SIGINT to the foreground
 * group) reaches the process that runs the devnet, which stops anvil once nothing uses the chain any more, instead
 * of anvil vanishing under it. The shell stops anvil (SIGTERM: it writes its state and exits) when the pipe from
 * this process closes, so anvil does not outlive this process even when it is killed by a signal that runs no exit
 * handler. The shell ignores SIGTERM itself and exits with anvil, so waiting for it waits for anvil's state.
 */
const GUARDED_ANVIL = [
  'exec 3<&0',
  '"$0" "$@" </dev/null 3<&- &',
  'node=$!',
  '{ while read -r _; do :; done <&3; kill -TERM "$node" 2>/dev/null; } &',
  'guard=$!',
  "trap '' TERM INT",
  'wait "$node"',
  'status=$?',
  'kill -KILL "$guard" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** Signals anvil and its shell together (their process group). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

export interface AnvilOptions {
  host: string;
  port: number;
  chainId: number;
  blockTimeSeconds: number;
  stateFile: string;
  log: (line: string) => void;
}

export interface AnvilNode {
  pid: number;
  rpcUrl: string;
  port: number;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 10_000;

export async function startAnvil(options: AnvilOptions): Promise<AnvilNode> {
  const args = [
    '--host',
    options.host,
    '--port',
    String(options.port),
    '--chain-id',
    String(options.chainId),
    '--block-time',
    String(options.blockTimeSeconds),
    // Loaded on start, written on exit and every few seconds in case the process is killed.
    '--state',
    options.stateFile,
    '--state-interval',
    '5',
    // Funded accounts come from the devnet's own seed, not anvil's well-known mnemonic.
    '--accounts',
    '0',
  ];
  const child = spawn('sh', ['-c', GUARDED_ANVIL, anvilBinary(), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  liveChildren.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      liveChildren.delete(child);
      resolve();
    }),
  );
  const recentOutput: string[] = [];

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`anvil (chain ${options.chainId}) did not start within ${STARTUP_TIMEOUT_MS} ms`)),
        STARTUP_TIMEOUT_MS,
      );
      let buffered = '';
      const onOutput = (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          recentOutput.push(line);
          if (recentOutput.length > 20) recentOutput.shift();
          const listening = /Listening on .*:(\d+)\s*$/.exec(line);
          if (listening?.[1]) {
            clearTimeout(timer);
            resolve(Number(listening[1]));
          }
        }
      };
      child.stdout?.on('data', onOutput);
      child.stderr?.on('data', onOutput);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `anvil (chain ${options.chainId}) exited during start (code ${code}, signal ${signal}): ${recentOutput.join('\n')}`,
          ),
        );
      });
    });
    // Keep draining output (a full pipe would block anvil) but only surface errors.
    child.stdout?.removeAllListeners('data');
    child.stdout?.resume();
    child.stderr?.removeAllListeners('data');
    child.stderr?.on('data', (chunk: Buffer) =>
      options.log(`anvil ${options.chainId}: ${chunk.toString('utf8').trimEnd()}`),
    );
    // A wildcard listen address is not something a client can dial.
    const dialHost = options.host === '0.0.0.0' ? '127.0.0.1' : options.host === '::' ? '::1' : options.host;
    const host = dialHost.includes(':') ? `[${dialHost}]` : dialHost;
    options.log(`anvil chain ${options.chainId} listening on ${host}:${port} (pid ${child.pid})`);
    return { pid: child.pid ?? -1, port, rpcUrl: `http://${host}:${port}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
