import { formatFiatAmount } from '../../checkout/checkoutView.ts';
import { formatMinorUnits } from '../../money.ts';
import { currencyOfUnit, fiatCurrency } from '../../payments/currencies.ts';

/** Numbers and dates in the browser's language. */
const browserLanguage = typeof navigator === 'undefined' ? 'en' : navigator.language;

/** A fiat amount of the API (`iso4217/<CODE>`, minor units), formatted with exactly the currency's digits. */
export function formatFiat(amount: { unit: string; value: string }, language = browserLanguage): string {
  const code = currencyOfUnit(amount.unit) ?? '';
  const currency = fiatCurrency(code);
  if (!currency) return `${amount.value} ${amount.unit}`;
  return formatFiatAmount(amount.value, currency, language);
}

/**
 * A total of the list's statistics (a number in standard units, the one float of the API) with the currency's
 * digits: written out at those digits it is the exact decimal the service summed in minor units.
 */
export function formatStatsTotal(total: { amount: number; currency: string }, language = browserLanguage): string {
  const decimals = fiatCurrency(total.currency)?.decimals ?? 2;
  const minor = BigInt(total.amount.toFixed(decimals).replace('.', '')).toString();
  return formatFiat({ unit: `iso4217/${total.currency}`, value: minor }, language);
}

/** A token amount in minor units, exact (every digit the token has, trailing zeros dropped), with its symbol. */
export function formatTokenExact(value: string, token: { symbol: string; decimals: number } | undefined): string {
  if (!token) return `${value} (minor units)`;
  const exact = formatMinorUnits(BigInt(value), token.decimals)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
  return `${exact} ${token.symbol}`;
}

/**
 * An amount a person typed (`12`, `12.5`, `12,50`) as minor units at `decimals` digits, by string arithmetic; undefined
 * when it is not a plain decimal or has more digits than the currency.
 */
export function minorUnitsOf(text: string, decimals: number): string | undefined {
  const match = /^(\d+)(?:[.,](\d*))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, whole = '', fraction = ''] = match;
  if (fraction.length > decimals) return undefined;
  return BigInt(`${whole}${fraction.padEnd(decimals, '0')}`).toString();
}

const dateTime = new Intl.DateTimeFormat(browserLanguage, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

const dateTimeSeconds = new Intl.DateTimeFormat(browserLanguage, { dateStyle: 'medium', timeStyle: 'medium' });

/** To the second, where events follow each other within a minute (a payment's timeline). */
export function formatDateTimeSeconds(iso: string): string {
  return dateTimeSeconds.format(new Date(iso));
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

/** A long id or hash shortened for a narrow column: its start and end, the whole in a title. */
export function shortened(text: string, keep = 10): string {
  return text.length <= keep * 2 + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep)}`;
}

/** Text whose `quoted` parts are code, as the API's own descriptions write it: split into plain and code parts. */
export function codeSpans(text: string): { text: string; code: boolean }[] {
  return text
    .split('`')
    .map((part, index) => ({ text: part, code: index % 2 === 1 }))
    .filter((part) => part.text !== '');
}
