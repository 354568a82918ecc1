import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import type { ChainServices } from './chainServices.ts';
import { repeatEvery, type RepeatingTask } from '../jobs/repeatEvery.ts';
import { submitDuePayment } from './submitPayment.ts';
import { type Logger, silentLogger } from '../log.ts';
import type { ConfirmationCheck } from './methods/paymentMethod.ts';

export interface PaymentSubmissionsOptions {
  /** Submissions under way at once in this process. */
  concurrency?: number;
  /** How often this process looks for submissions left due by any process. */
  sweepEveryMs?: number;
  log?: Logger;
}

/**
 * Submits confirmed payments in this process: the confirming request hands its payment over at once (`soon`), and
 * a sweep every second takes any submission left due, by this process or one that died, or after a failed
 * attempt's backoff. A submission's row is its lease, so processes never submit the same payment at once.
 */
export class PaymentSubmissions {
  private readonly concurrency: number;
  private readonly log: Logger;
  /** Payments waiting or under way here, so a sweep does not queue one twice, with what their confirm measured. */
  private readonly queued = new Map<string, ConfirmationCheck | undefined>();
  private readonly waiting: string[] = [];
  private running = 0;
  private stopped = false;
  private sweeps: RepeatingTask | undefined;
  private drained: (() => void) | undefined;

  private constructor(
    private readonly ctx: AppContext,
    private readonly services: ChainServices,
    options: PaymentSubmissionsOptions,
  ) {
    this.concurrency = options.concurrency ?? 32;
    this.log = options.log ?? silentLogger;
  }

  /** Submits with `ctx`'s chain services, and starts sweeping. */
  static start(ctx: AppContext, options: PaymentSubmissionsOptions = {}): PaymentSubmissions {
    if (!ctx.chainServices) throw new Error('submitting payments needs the chain services');
    const submissions = new PaymentSubmissions(ctx, ctx.chainServices, options);
    submissions.sweeps = repeatEvery(
      () => submissions.sweep(),
      options.sweepEveryMs ?? 1000,
      (error) => submissions.log.warn(`looking for due payment submissions failed: ${error.message}`),
    );
    return submissions;
  }

  /**
   * Submits the payment's confirmation soon in this process, unless it is waiting or under way here already. The
   * confirming request passes what its check measured, so the first submission need not ask the chain again.
   */
  soon(paymentId: string, check?: ConfirmationCheck): void {
    if (this.stopped || this.queued.has(paymentId)) return;
    this.queued.set(paymentId, check);
    this.waiting.push(paymentId);
    this.pump();
  }

  /** Stops sweeping and waits for the submissions under way; those still waiting are left to the sweeps. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting.length = 0;
    await this.sweeps?.stop();
    if (this.running > 0) await new Promise<void>((resolve) => (this.drained = resolve));
  }

  private pump(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const paymentId = this.waiting.shift() as string;
      this.running += 1;
      void this.submit(paymentId);
    }
  }

  private async submit(paymentId: string): Promise<void> {
    try {
      await submitDuePayment(this.ctx, this.services, paymentId, this.queued.get(paymentId));
    } catch (error) {
      this.log.warn(`submitting payment ${paymentId} failed: ${(error as Error).message.split('\n')[0]}`);
    } finally {
      this.running -= 1;
      this.queued.delete(paymentId);
      if (this.running === 0 && this.stopped) this.drained?.();
      this.pump();
    }
  }

  private async sweep(): Promise<void> {
    // Taken only as far as this process has room for: the others sweep too.
    const room = this.concurrency * 2 - this.queued.size;
    if (room <= 0) return;
    const due = await this.ctx.db
      .selectFrom('payment_confirmations')
      .select('payment_id')
      .where('submitted_at', 'is', null)
      .where('next_submission_at', '<=', sql<Date>`now()`)
      .orderBy('next_submission_at')
      .limit(room)
      .execute();
    for (const { payment_id } of due) this.soon(payment_id);
  }
}
