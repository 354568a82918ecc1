import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Spawned, startBenchService } from './support.ts';

interface Slot {
  spawned: Spawned | undefined;
  /** Everything its processes wrote, one file per slot across restarts. */
  log: WriteStream;
  /** Set before this supervisor kills or stops it, so its exit is not taken for a crash. */
  expectingExit: boolean;
  /** The last lines it wrote, for a crash report. */
  tail: string[];
}

const TAIL_LINES = 30;
const START_RETRY_MS = 1_000;

/** A log line of the service at level error (50) or worse. */
function isErrorLine(line: string): boolean {
  try {
    return ((JSON.parse(line) as { level?: number }).level ?? 0) >= 50;
  } catch {
    return false;
  }
}

/**
 * `paygate start` processes on one database, kept running: one this supervisor killed is started again after a
 * while; one that exits by itself is a crash, reported with its last lines and started again. A start that fails
 * (the database is down) is tried again every second.
 */
export class ServiceProcesses {
  readonly slots: Slot[];
  kills = 0;
  starts = 0;
  /** Starts that ended before the process listened (while the database was down, say). */
  refusedStarts = 0;
  readonly crashes: string[] = [];
  /** Lines logged at level error or worse, and a few of them. */
  errorLines = 0;
  readonly errorExamples: string[] = [];
  private stopping = false;

  constructor(
    count: number,
    private readonly databaseUrl: string,
    private readonly dataDir: string,
    private readonly env: Record<string, string>,
  ) {
    this.slots = Array.from({ length: count }, (_unused, index) => ({
      spawned: undefined,
      log: createWriteStream(path.join(dataDir, `process-${index}.log`), { flags: 'a' }),
      expectingExit: false,
      tail: [],
    }));
  }

  /** URLs of the processes listening now. */
  live(): string[] {
    return this.slots.flatMap((slot) => (slot.spawned && !slot.expectingExit ? [slot.spawned.url] : []));
  }

  async startAll(): Promise<void> {
    await Promise.all(this.slots.map((slot) => this.start(slot)));
  }

  /** SIGKILL to one listening process chosen at random; it is started again after `restartAfterMs`. */
  async killOne(restartAfterMs: number): Promise<boolean> {
    const up = this.slots.filter((slot) => slot.spawned && !slot.expectingExit);
    const slot = up[Math.floor(Math.random() * up.length)];
    const spawned = slot?.spawned;
    if (!slot || !spawned) return false;
    slot.expectingExit = true;
    this.kills += 1;
    const exited = new Promise((resolve) => spawned.child.once('exit', resolve));
    spawned.child.kill('SIGKILL');
    await exited;
    slot.log.write(`--- killed at ${new Date().toISOString()}\n`);
    slot.spawned = undefined;
    void sleep(restartAfterMs).then(() => this.start(slot));
    return true;
  }

  /** Waits until every process listens (after kills and refused starts). */
  async allUp(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.live().length < this.slots.length) {
      if (Date.now() > deadline) return false;
      await sleep(200);
    }
    return true;
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        slot.expectingExit = true;
        await slot.spawned?.stop();
        await new Promise((resolve) => slot.log.end(resolve));
      }),
    );
  }

  private async start(slot: Slot): Promise<void> {
    while (!this.stopping) {
      this.starts += 1;
      try {
        const spawned = await startBenchService(this.databaseUrl, this.dataDir, this.env);
        if (this.stopping) {
          await spawned.stop();
          return;
        }
        slot.tail = [];
        slot.log.write(`--- started at ${new Date().toISOString()}, listening at ${spawned.url}\n`);
        slot.expectingExit = false;
        slot.spawned = spawned;
        this.watch(slot, spawned);
        return;
      } catch {
        this.refusedStarts += 1;
        await sleep(START_RETRY_MS);
      }
    }
  }

  private watch(slot: Slot, spawned: Spawned): void {
    let pending = '';
    const onData = (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.trim()) continue;
        slot.log.write(`${line}\n`);
        slot.tail.push(line);
        if (slot.tail.length > TAIL_LINES) slot.tail.shift();
        if (isErrorLine(line)) {
          this.errorLines += 1;
          if (this.errorExamples.length < 5) this.errorExamples.push(line.slice(0, 400));
        }
      }
    };
    spawned.child.stdout?.on('data', onData);
    spawned.child.stderr?.on('data', onData);
    spawned.child.once('exit', (code, signal) => {
      if (slot.expectingExit || this.stopping) return;
      this.crashes.push(`exited by itself (${signal ?? code}); its last lines:\n${slot.tail.join('\n')}`);
      slot.spawned = undefined;
      void this.start(slot);
    });
  }
}
