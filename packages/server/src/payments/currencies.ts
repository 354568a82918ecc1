import { type FiatCurrency as IsoCurrency, fiatCurrency as isoCurrency, formatMinorUnits } from '@paygate/client/money';

/** A fiat currency the service takes amounts in, with the name and symbol its pages and emails show. */
export interface FiatCurrency extends IsoCurrency {
  name: string;
  symbol: string;
}

const currencyNames = new Intl.DisplayNames(['en'], { type: 'currency' });
const cache = new Map<string, FiatCurrency>();

/** An ISO 4217 currency with its minor-unit digits (`@paygate/client/money`); names and symbols from ICU's data. */
export function fiatCurrency(code: string): FiatCurrency | undefined {
  const iso = isoCurrency(code);
  if (!iso) return undefined;
  let currency = cache.get(code);
  if (!currency) {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: code });
    const symbol = format.formatToParts(0).find((part) => part.type === 'currency')?.value ?? code;
    currency = { ...iso, name: currencyNames.of(code) ?? code, symbol };
    cache.set(code, currency);
  }
  return currency;
}

/**
 * Minor units as a number in standard units (1234 cents -> 12.34). Only for the interface's
 * `stats.totalRevenue.amount`, the one place a number is asked for; the conversion is exact decimal text first.
 */
export function toStandardUnits(minor: bigint, decimals: number): number {
  return Number(formatMinorUnits(minor, decimals));
}
