import pg from 'pg';
import { PAYMENT_STATUS_CHANNEL } from './transitions.ts';

export const MAX_LONG_POLL_MS = 30_000;

/**
 * Long-poll wake-ups through PostgreSQL LISTEN/NOTIFY: one listening connection per process, however many
 * requests wait, so a change committed by any process wakes the waiters of every process.
 */
export class PaymentStatusWaiter {
  private client: pg.Client | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  private stopping = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly onProblem: (message: string) => void = () => {},
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (message) => message.payload && this.wake(message.payload));
    client.on('error', (error) => this.reconnect(`listener connection lost: ${error.message}`));
    client.on('end', () => this.reconnect('listener connection ended'));
    await client.connect();
    await client.query(`LISTEN ${PAYMENT_STATUS_CHANNEL}`);
    this.client = client;
  }

  /** Resolves when the payment may have changed, or after `timeoutMs`; register before reading the state. */
  waitForChange(paymentId: string, timeoutMs: number): { changed: Promise<void>; cancel(): void } {
    let wake: () => void = () => {};
    if (this.stopping) return { changed: Promise.resolve(), cancel: () => {} };
    const changed = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const timer = setTimeout(wake, timeoutMs);
    let set = this.waiters.get(paymentId);
    if (!set) {
      set = new Set();
      this.waiters.set(paymentId, set);
    }
    set.add(wake);
    const cancel = () => {
      clearTimeout(timer);
      const current = this.waiters.get(paymentId);
      current?.delete(wake);
      if (current?.size === 0) this.waiters.delete(paymentId);
    };
    void changed.then(cancel);
    return { changed, cancel };
  }

  /** True once the process is shutting down: waiters are woken and should answer at once. */
  get stopped(): boolean {
    return this.stopping;
  }

  waitingCount(): number {
    let count = 0;
    for (const set of this.waiters.values()) count += set.size;
    return count;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.reconnectTimer);
    for (const id of [...this.waiters.keys()]) this.wake(id);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private wake(paymentId: string): void {
    const set = this.waiters.get(paymentId);
    if (!set) return;
    for (const wake of [...set]) wake();
  }

  /** While disconnected, notifications are missed: wake every waiter so it re-reads, then listen again. */
  private reconnect(reason: string): void {
    if (this.stopping || this.reconnectTimer) return;
    this.onProblem(reason);
    this.client = undefined;
    for (const id of [...this.waiters.keys()]) this.wake(id);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.start().catch((error: Error) => this.reconnect(`listener reconnect failed: ${error.message}`));
    }, 1000);
  }
}
