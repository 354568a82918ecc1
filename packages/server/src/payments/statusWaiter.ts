import type { DatabaseNotifications } from '../db/notifications.ts';

/** The channel every payment status change notifies (at commit), with the payment's id as payload. */
export const PAYMENT_STATUS_CHANNEL = 'payment_status';

export const MAX_LONG_POLL_MS = 30_000;

/**
 * Long-poll wake-ups through the process's one notifications listener, however many requests wait, so a change
 * committed by any process wakes the waiters of every process.
 */
export class PaymentStatusWaiter {
  private readonly waiters = new Map<string, Set<() => void>>();
  private stopping = false;

  /**
   * `perPayment` bounds how many requests one payment may hold at once in this process; one more is answered at
   * once (as after a change) instead of held, so no payment's link can pile up connections.
   */
  constructor(
    notifications: DatabaseNotifications,
    private readonly perPayment = 1_000,
  ) {
    notifications.subscribe(PAYMENT_STATUS_CHANNEL, {
      notification: (paymentId) => this.wake(paymentId),
      // While disconnected, notifications are missed: every waiter re-reads now.
      listening: (listening) => {
        if (!listening) this.wakeAll();
      },
    });
  }

  /**
   * Resolves when the payment may have changed, or after `timeoutMs`; register before reading the state. Not `held`
   * (resolved at once) while the process stops or the payment already holds its most waiters: answer now.
   */
  waitForChange(paymentId: string, timeoutMs: number): { changed: Promise<void>; cancel(): void; held: boolean } {
    let wake: () => void = () => {};
    if (this.stopping || (this.waiters.get(paymentId)?.size ?? 0) >= this.perPayment) {
      return { changed: Promise.resolve(), cancel: () => {}, held: false };
    }
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
    return { changed, cancel, held: true };
  }

  waitingCount(): number {
    let count = 0;
    for (const set of this.waiters.values()) count += set.size;
    return count;
  }

  stop(): void {
    this.stopping = true;
    this.wakeAll();
  }

  private wake(paymentId: string): void {
    const set = this.waiters.get(paymentId);
    if (!set) return;
    for (const wake of [...set]) wake();
  }

  private wakeAll(): void {
    for (const id of [...this.waiters.keys()]) this.wake(id);
  }
}
