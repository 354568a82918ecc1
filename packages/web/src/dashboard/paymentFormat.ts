import { browserLanguage, formatFiat } from '../ui/format.ts';
import { fiatCurrency } from '@paygate/client/money';

/**
 * A total of the list's statistics (a number in standard units, the one float of the API) with the currency's
 * digits: written out at those digits it is the exact decimal the service summed in minor units.
 */
export function formatStatsTotal(total: { amount: number; currency: string }, language = browserLanguage): string {
  const decimals = fiatCurrency(total.currency)?.decimals ?? 2;
  const minor = BigInt(total.amount.toFixed(decimals).replace('.', '')).toString();
  return formatFiat({ unit: `iso4217/${total.currency}`, value: minor }, language);
}

/** The list statuses in words, never by colour alone. */
export const STATUS_LABELS: Record<string, string> = {
  requires_action: 'Awaiting payment',
  processing: 'Processing',
  succeeded: 'Succeeded',
  failed: 'Failed',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

export function statusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

/** A refund's statuses in words. */
export const REFUND_STATUS_LABELS: Record<string, string> = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

/** The status a payment is shown in: its own, where the list names a cancelled payment `failed` (D9). */
export function shownStatus(payment: { status: string; cancelled?: true }): string {
  return payment.cancelled ? 'cancelled' : payment.status;
}

/** An amount as the API gives it: minor units in `value`. */
type ApiAmount = { value: string } | undefined;

/** An amount of the API (minor units) when it is more than nothing; undefined for none or zero. */
export function aboveZero<T extends { value: string }>(amount: T | undefined): T | undefined {
  return amount && BigInt(amount.value) > 0n ? amount : undefined;
}

/**
 * What a payment's refunds did, as marks beside its status: whether they returned all of it or a part, and whether
 * more is on its way back (money sent is never shown as refunded before it lands).
 */
export function refundMarks(payment: {
  fiatAmount?: ApiAmount;
  refundedAmount?: ApiAmount;
  pendingRefundAmount?: ApiAmount;
}): { kind: 'refunded' | 'partially_refunded' | 'refund_pending'; label: string }[] {
  const refunded = BigInt(payment.refundedAmount?.value ?? '0');
  const pending = BigInt(payment.pendingRefundAmount?.value ?? '0');
  const whole = payment.fiatAmount !== undefined && refunded >= BigInt(payment.fiatAmount.value);
  return [
    ...(refunded > 0n
      ? [
          whole
            ? ({ kind: 'refunded', label: 'Refunded' } as const)
            : ({ kind: 'partially_refunded', label: 'Partially refunded' } as const),
        ]
      : []),
    ...(pending > 0n ? [{ kind: 'refund_pending', label: 'Refund pending' } as const] : []),
  ];
}
