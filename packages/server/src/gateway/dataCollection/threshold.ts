import type { ExchangeRate } from '../../chains/prices/exchangeRate.ts';
import { UserFacingError } from '../../userFacingError.ts';
import { fiatCurrency } from '../../payments/currencies.ts';

/**
 * Above this fiat amount a payment asks for buyer data (D14). `currency` null: the amount is in minor units of
 * whatever currency the payment is in; otherwise minor units of `currency`, and payments in another currency are
 * converted to it before comparing.
 */
export interface DataThreshold {
  currency: string | null;
  amount: bigint;
}

/** A merchant's setting: the partner's threshold, none at all, or its own. */
export type MerchantDataThreshold =
  | { kind: 'inherit' }
  | { kind: 'never' }
  | { kind: 'threshold'; threshold: DataThreshold };

export class DataThresholdError extends UserFacingError {}

const THRESHOLD = /^(?:([A-Z]{3}):)?(\d{1,38})$/;

/** Parses `USD:100000` (minor units of USD) or `100000` (minor units of the payment's currency). */
export function parseDataThreshold(text: string): DataThreshold {
  const match = THRESHOLD.exec(text.trim());
  if (!match) {
    throw new DataThresholdError(
      `a threshold is <CURRENCY>:<minor units> such as USD:100000, or minor units of the payment's currency such as 100000; got "${text}"`,
    );
  }
  const [, currency, amount] = match;
  if (currency !== undefined && !fiatCurrency(currency))
    throw new DataThresholdError(`${currency} is not an ISO 4217 currency with minor units`);
  return { currency: currency ?? null, amount: BigInt(amount as string) };
}

export function formatDataThreshold(threshold: DataThreshold): string {
  return threshold.currency ? `${threshold.currency}:${threshold.amount}` : threshold.amount.toString();
}

/** The threshold that applies to a merchant's payments: its override, else its partner's. */
export function effectiveDataThreshold(
  partner: DataThreshold | null,
  merchant: MerchantDataThreshold,
): DataThreshold | null {
  if (merchant.kind === 'never') return null;
  if (merchant.kind === 'threshold') return merchant.threshold;
  return partner;
}

export interface PaymentAmount {
  currency: string;
  /** Minor units of `currency`. */
  amount: bigint;
}

/**
 * Whether the payment is above the threshold. `rate` is the price of one whole unit of the threshold's currency in
 * the payment's currency; it is needed only when the two currencies differ (else pass null), and without it the
 * answer is yes: not knowing the value must not skip the collection.
 */
export function isAboveDataThreshold(
  payment: PaymentAmount,
  threshold: DataThreshold,
  rate: ExchangeRate | null,
): boolean {
  if (threshold.currency === null || threshold.currency === payment.currency) return payment.amount > threshold.amount;
  if (!rate) return true;
  const paymentDecimals = BigInt(fiatCurrency(payment.currency)?.decimals ?? 2);
  const thresholdDecimals = BigInt(fiatCurrency(threshold.currency)?.decimals ?? 2);
  // payment / 10^pd / rate > threshold / 10^td, all sides multiplied out to integers.
  const paymentSide = payment.amount * rate.denominator * 10n ** thresholdDecimals;
  const thresholdSide = threshold.amount * rate.numerator * 10n ** paymentDecimals;
  return paymentSide > thresholdSide;
}
