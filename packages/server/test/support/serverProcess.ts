import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PAYGATE_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/paygate.js');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** What it wrote on stdout alone: its JSON log lines and its listening line. */
  stdout(): string;
  /** Resolves with the first match of `pattern` in the process output, waiting for it if needed. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** The test runner's environment without the variables it sets for itself (Vite sets BASE_URL). */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { BASE_URL: _viteBase, ...inherited } = process.env;
  return { ...inherited, ...env };
}

/**
 * Chains for server processes that do not test chains: the mainnet preset with an unreachable RPC URL (nothing
 * calls it) and throwaway collector keys, so that no devnet starts.
 */
export const NO_CHAIN_ENV = {
  CHAINS: 'mainnet',
  RPC_URL_EIP155_8453: 'http://127.0.0.1:9',
  COLLECTOR_EVM_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
  COLLECTOR_SOLANA_SEED: '22'.repeat(32),
};

/** The restart tests' entry point, which starts the service with a settlement or refund crash point. */
export const CRASHING_SERVICE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'serviceWithCrashPoint.js');

/** Waits for a process started with a crash point to die there: killed by SIGKILL, no shutdown code run. */
export async function crashedAt(server: ServerProcess, point: string): Promise<NodeJS.Signals | null> {
  await server.waitForOutput(new RegExp(`test crash point "${point}" reached`), 60_000);
  return (
    server.child.signalCode ??
    new Promise<NodeJS.Signals | null>((resolve) => server.child.once('exit', (_code, signal) => resolve(signal)))
  );
}

/**
 * Runs `paygate start` as its own process, as an operator would (or another entry point, given as `args`), and
 * waits until it listens.
 */
export async function startServerProcess(
  env: Record<string, string>,
  args: string[] = [PAYGATE_BIN, 'start'],
): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    env: childEnv({
      PORT: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '100000',
      PAYMENT_RATE_LIMIT_MAX: '100000',
      ...NO_CHAIN_ENV,
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /paygate listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    stdout: () => stdout,
    waitForOutput: async (pattern, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (Date.now() > deadline) throw new Error(`no ${pattern} in output:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one operator command (`paygate ...`) to completion. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, [PAYGATE_BIN, ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Two service processes on the run's database, for behaviour that must hold across processes. */
export function startTwoServerProcesses(databaseUrl: string): Promise<[ServerProcess, ServerProcess]> {
  const env = { DATABASE_URL: databaseUrl, DEMO_PARTNER: 'never' };
  return Promise.all([startServerProcess(env), startServerProcess(env)]);
}
