import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import type { PaymentStatus } from '../db/schema.ts';
import type { MerchantRow, PaymentRow } from '../payments/paymentResource.ts';
import { PaymentStatusView, toStatusView } from '../payments/paymentResource.ts';
import { underpaidTotals } from '../payments/paymentExceptions.ts';
import { ReceivedPart, receivedParts } from '../deposits/receivedParts.ts';
import { buyerFacingStatus, isTerminal } from '../payments/stateMachine.ts';
import { MAX_LONG_POLL_MS, type PaymentStatusWaiter } from '../payments/statusWaiter.ts';
import type { ChainServices } from './chainServices.ts';
import { Type } from '@sinclair/typebox';
import { createHash } from 'node:crypto';

/**
 * The payment `id`, whichever partner created it: a payment link is public, so any authenticated wallet may pay
 * it (D2).
 */
export async function gatewayPaymentOf(ctx: AppContext, paymentId: string): Promise<PaymentRow> {
  const payment = await ctx.db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirst();
  if (!payment) throw ApiError.notFound(`Payment ${paymentId.slice(0, 64)} not found.`, 'payment_not_found');
  return payment;
}

export async function merchantOfPayment(ctx: AppContext, payment: PaymentRow): Promise<MerchantRow> {
  const merchant = await ctx.merchants.get(payment.merchant_id);
  if (!merchant) throw new Error(`merchant ${payment.merchant_id} of payment ${payment.id} does not exist`);
  return merchant;
}

/**
 * The payment's merchant, while it takes payments: the links of a merchant that its partner deleted, or that an
 * operator made inactive or suspended (until it is active again), cannot be paid (403 `merchant_not_active`).
 */
export async function merchantTakingPayments(ctx: AppContext, payment: PaymentRow): Promise<MerchantRow> {
  const merchant = await merchantOfPayment(ctx, payment);
  // Which of these it is stays between the merchant, its partner and the operator: any wallet may ask.
  if (merchant.status !== 'active' || merchant.deleted_at !== null) throw new ApiError('merchant_not_active');
  return merchant;
}

/** A payment a buyer can still pay: 410 once expired, 400 `invalid_state` once it left `requires_action`. */
export function requirePayable(payment: PaymentRow, now: Date): void {
  const status = buyerFacingStatus(payment, now);
  if (status === 'expired') {
    throw new ApiError('payment_expired', 'The payment has expired.', {
      expiresAt: Math.floor(payment.expires_at.getTime() / 1000),
    });
  }
  if (status !== 'requires_action')
    throw new ApiError('invalid_state', `A ${status} payment cannot be paid.`, { status });
}

/** The chain services, which a process without configured collectors does not have. */
export function chainServicesOf(ctx: AppContext): ChainServices {
  if (!ctx.chainServices)
    throw new ApiError('service_unavailable', 'Payments on chain are not configured on this service.');
  return ctx.chainServices;
}

export const StatusVersion = Type.String({
  maxLength: 64,
  description:
    'paygate extension: names what the buyer sees of the payment (its status and what partial transfers brought). Send it back as `since` to a status long-poll, which then answers at once if the payment changed before the request arrived.',
});

/** The gateway status, with what partial transfers brought while the payment is unpaid (a paygate extension). */
export const GatewayStatusView = Type.Object({
  ...PaymentStatusView.properties,
  received: Type.Optional(Type.Array(ReceivedPart)),
  version: StatusVersion,
});

/**
 * What a status long-poll compares: the buyer-facing status and the underpaid totals, as an opaque short hash so
 * callers cannot come to depend on its parts.
 */
export function statusVersion(payment: PaymentRow, now: Date): string {
  const seen = `${buyerFacingStatus(payment, now)}|${underpaidTotals(payment.exceptions)}`;
  return createHash('sha256').update(seen).digest('base64url').slice(0, 16);
}

/** `toStatusView`, and while the payment waits for the rest of a transfer of less than asked, `received`. */
export async function gatewayStatusView(ctx: AppContext, payment: PaymentRow, now: Date) {
  const view = { ...toStatusView(payment, ctx.chains, now), version: statusVersion(payment, now) };
  if (view.status !== 'requires_action') return view;
  const received = await receivedParts(ctx, payment);
  return received.length ? { ...view, received } : view;
}

/**
 * The gateway status, held until it differs from `from` (the status the caller already knows), or what partial
 * transfers brought differs from what `payment` shows, or `maxPollMs` runs out; a change committed by any process
 * wakes it. An expiry wakes it too, though nothing is written then.
 * `readAfter`, when given, was registered before `payment` was read: the first round waits on it without reading
 * the payment again.
 */
export async function statusAfterLongPoll(
  ctx: AppContext,
  waiter: PaymentStatusWaiter,
  payment: PaymentRow,
  from: PaymentStatus,
  maxPollMs: number | undefined,
  readAfter?: ReturnType<PaymentStatusWaiter['waitForChange']>,
) {
  const limitMs = Math.min(maxPollMs ?? 0, MAX_LONG_POLL_MS);
  const initial = buyerFacingStatus(payment, ctx.clock.now());
  if (limitMs === 0 || isTerminal(initial) || initial !== from) {
    readAfter?.cancel();
    return gatewayStatusView(ctx, payment, ctx.clock.now());
  }
  const received = underpaidTotals(payment.exceptions);
  const untilExpiryMs = payment.expires_at.getTime() - ctx.clock.now().getTime() + 50;
  const wakeAt = Date.now() + (initial === 'requires_action' ? Math.min(limitMs, untilExpiryMs) : limitMs);
  if (readAfter) {
    // Until it fires, the caller's read is the current state.
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(wakeAt - Date.now(), 0));
      void readAfter.changed.then(resolve);
    });
    clearTimeout(timer);
    readAfter.cancel();
  }
  for (;;) {
    const remaining = wakeAt - Date.now();
    // Registered before the re-read, so a change committed in between still wakes this request.
    const wait = waiter.waitForChange(payment.id, Math.max(remaining, 0));
    const current = await ctx.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', payment.id)
      .executeTakeFirstOrThrow();
    const now = ctx.clock.now();
    const changed = buyerFacingStatus(current, now) !== from || underpaidTotals(current.exceptions) !== received;
    if (changed || remaining <= 0 || !wait.held) {
      wait.cancel();
      return gatewayStatusView(ctx, current, now);
    }
    await wait.changed;
  }
}
