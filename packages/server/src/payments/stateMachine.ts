import type { PaymentStatus } from '../db/schema.ts';
import type { PaymentException } from './paymentExceptions.ts';

const TRANSITIONS: Record<PaymentStatus, readonly PaymentStatus[]> = {
  requires_action: ['processing', 'expired', 'cancelled'],
  processing: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
  expired: [],
  cancelled: [],
};

/** The one payment state machine (D8): terminal states never change. */
export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * The one way a terminal state changes: the merchant accepts a transfer that arrived after its payment closed
 * unpaid (`paid_late`), and the payment succeeds, the exception recording the acceptance.
 */
export function canAcceptLatePayment(from: PaymentStatus): boolean {
  return from === 'expired' || from === 'cancelled' || from === 'failed';
}

export function isTerminal(status: PaymentStatus): boolean {
  return TRANSITIONS[status].length === 0;
}

/** The `/v1/merchant/payment` family calls the unpaid state `pending`; every other endpoint `requires_action`. */
export function merchantPaymentStatusName(status: PaymentStatus): string {
  return status === 'requires_action' ? 'pending' : status;
}

/** The payment list has no `cancelled`: a cancelled payment is listed as failed (D9). */
export function listStatusName(status: PaymentStatus): Exclude<PaymentStatus, 'cancelled'> {
  return status === 'cancelled' ? 'failed' : status;
}

/** What a read needs of a payment to tell the state it is in. */
export interface PaymentState {
  status: PaymentStatus;
  expires_at: Date;
  exceptions: readonly PaymentException[];
  expiry_awaits_follower: boolean;
}

/**
 * The state a buyer is shown: an unpaid payment past its expiry takes no more payments, and is what the expiry sweep
 * makes of it, whether or not the sweep has run yet: failed when a deposit brought less than asked, else expired.
 */
export function buyerFacingStatus(payment: Omit<PaymentState, 'expiry_awaits_follower'>, now: Date): PaymentStatus {
  if (payment.status !== 'requires_action' || now.getTime() < payment.expires_at.getTime()) return payment.status;
  return underpaidAtExpiry(payment) ? 'failed' : 'expired';
}

/**
 * The state the merchant's side reads, which it may act on for good: as the buyer's, but a payment with a deposit
 * address or a Solana Pay request stays unpaid past its expiry until the sweep decides (a transfer made in time may
 * not be read yet), so a final state read once never changes.
 */
export function effectiveStatus(payment: PaymentState, now: Date): PaymentStatus {
  if (payment.status === 'requires_action' && payment.expiry_awaits_follower) return payment.status;
  return buyerFacingStatus(payment, now);
}

/** The failure code of a failed payment, including `underpaid` for one the expiry sweep has yet to fail. */
export function effectiveFailureCode(
  payment: PaymentState & { failure_code: string | null },
  now: Date,
): string | undefined {
  if (payment.failure_code) return payment.failure_code;
  return payment.status === 'requires_action' && effectiveStatus(payment, now) === 'failed' ? 'underpaid' : undefined;
}

function underpaidAtExpiry(payment: Pick<PaymentState, 'exceptions'>): boolean {
  return payment.exceptions.some((exception) => exception.type === 'underpaid');
}

/** How long a client should wait before asking again; absent once final. */
export function pollHintMs(status: PaymentStatus): number | undefined {
  if (isTerminal(status)) return undefined;
  return status === 'processing' ? 1000 : 2000;
}
