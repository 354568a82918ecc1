import type { PaymentStatus } from '../db/schema.ts';
import { formatMinorUnits } from '@paygate/client/money';
import type { FiatCurrency } from '../payments/currencies.ts';

/** A fiat amount in minor units, formatted for the buyer's locale with exactly the currency's ISO 4217 digits. */
export function formatFiatAmount(minor: string, currency: FiatCurrency, locale: string): string {
  const format = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: currency.code,
    minimumFractionDigits: currency.decimals,
    maximumFractionDigits: currency.decimals,
  });
  // A decimal string is formatted exactly (Intl.NumberFormat v3), never through a float.
  return format.format(formatMinorUnits(BigInt(minor), currency.decimals) as Intl.StringNumericLiteral);
}

/**
 * The option preselected for the buyer, by index: the first that pays in a token pegged to the payment's own
 * currency (EURC for a EUR payment, at par), else the first offered. `optionAssets` are the options' CAIP-19 ids,
 * `assetsAtPar` those of the tokens pegged to the payment's currency.
 */
export function preferredOptionIndex(optionAssets: readonly string[], assetsAtPar: readonly string[]): number {
  const atPar = new Set(assetsAtPar.map((asset) => asset.toLowerCase()));
  return Math.max(
    0,
    optionAssets.findIndex((asset) => atPar.has(asset.toLowerCase())),
  );
}

export interface RedirectTargets {
  success: string;
  error: string;
}

function httpsWithPaymentId(url: string | null, paymentId: string): string | undefined {
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:') return undefined;
  parsed.searchParams.set('paymentId', paymentId);
  return parsed.toString();
}

/**
 * Where final states send the buyer (interface, checkout redirect rule): only when both URLs are valid HTTPS,
 * each with the payment id added as `paymentId`; otherwise no redirect at all.
 */
export function redirectTargets(
  successUrl: string | null,
  errorUrl: string | null,
  paymentId: string,
): RedirectTargets | undefined {
  const success = httpsWithPaymentId(successUrl, paymentId);
  const error = httpsWithPaymentId(errorUrl, paymentId);
  return success && error ? { success, error } : undefined;
}

/** The redirect for a status: success for `succeeded`, error for the other final states, none before that. */
export function redirectFor(status: PaymentStatus, targets: RedirectTargets | undefined): string | undefined {
  if (!targets) return undefined;
  if (status === 'succeeded') return targets.success;
  return status === 'failed' || status === 'expired' || status === 'cancelled' ? targets.error : undefined;
}

/** How often a page without JavaScript reloads to show a new status; none once final. */
export function refreshSecondsFor(status: PaymentStatus): number | undefined {
  if (status === 'requires_action') return 5;
  return status === 'processing' ? 3 : undefined;
}
