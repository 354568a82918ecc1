import type { PaymentStatus } from '../db/schema.ts';

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

/** A payment past its expiry is expired, whether or not the expiry job has run yet. */
export function effectiveStatus(status: PaymentStatus, expiresAt: Date, now: Date): PaymentStatus {
  return status === 'requires_action' && now.getTime() >= expiresAt.getTime() ? 'expired' : status;
}

/** How long a client should wait before asking again; absent once final. */
export function pollHintMs(status: PaymentStatus): number | undefined {
  if (isTerminal(status)) return undefined;
  return status === 'processing' ? 1000 : 2000;
}
