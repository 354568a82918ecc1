import { decimalAmount } from '@paygate/client/money';

/**
 * Amounts as paygate sends them: a string of minor units and the number of decimals. Shown without ever passing
 * through a float (`@paygate/client/money`), so 12.30 USD never reads 12.299999.
 */

/** `1230`, 2 -> `12.30`; `4000000000000000`, 18 -> `0.004`: trailing zeros dropped, but at least two decimals. */
export function decimalOf(minorUnits: string, decimals: number): string {
  const [whole, fraction = ''] = decimalAmount(BigInt(minorUnits), decimals).split('.');
  const shown = fraction.padEnd(Math.min(2, decimals), '0');
  return shown ? `${whole}.${shown}` : `${whole}`;
}

/** A fiat amount in the shopper's format, e.g. `$12.30` for `1230` minor units of USD. */
export function fiatText(minorUnits: string, currency: string, decimals: number): string {
  const formatter = new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: decimals });
  return formatter.format(decimalOf(minorUnits, decimals) as `${number}`);
}
