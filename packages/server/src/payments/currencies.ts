import { formatMinorUnits } from '../money.ts';

export interface FiatCurrency {
  code: string;
  /** Digits of the minor unit (2 for USD, 0 for JPY, 3 for BHD). */
  decimals: number;
  name: string;
  symbol: string;
}

const KNOWN_CODES = new Set(Intl.supportedValuesOf('currency'));

// Minor units from the ISO 4217 list itself: ICU's display digits differ for some currencies (IDR, HUF, IQD...).
const ZERO_DECIMALS = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'UYI',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DECIMALS = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);
/** Codes without a minor unit in ISO 4217 (precious metals, fund and testing codes): not payable amounts. */
const NO_MINOR_UNIT = new Set([
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XPD',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'XXX',
]);

function isoMinorUnits(code: string): number {
  if (ZERO_DECIMALS.has(code)) return 0;
  return THREE_DECIMALS.has(code) ? 3 : 2;
}
const currencyNames = new Intl.DisplayNames(['en'], { type: 'currency' });
const cache = new Map<string, FiatCurrency>();

/** An ISO 4217 currency with its minor-unit digits; names and symbols from the runtime's ICU data. */
export function fiatCurrency(code: string): FiatCurrency | undefined {
  if (!/^[A-Z]{3}$/.test(code) || !KNOWN_CODES.has(code) || NO_MINOR_UNIT.has(code)) return undefined;
  let currency = cache.get(code);
  if (!currency) {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: code });
    const symbol = format.formatToParts(0).find((part) => part.type === 'currency')?.value ?? code;
    currency = {
      code,
      decimals: isoMinorUnits(code),
      name: currencyNames.of(code) ?? code,
      symbol,
    };
    cache.set(code, currency);
  }
  return currency;
}

/** The unit string of a fiat amount, `iso4217/USD` -> `USD`. */
export function currencyOfUnit(unit: string): string | undefined {
  return unit.startsWith('iso4217/') ? unit.slice('iso4217/'.length) : undefined;
}

/**
 * Minor units as a number in standard units (1234 cents -> 12.34). Only for the interface's
 * `stats.totalRevenue.amount`, the one place a number is asked for; the conversion is exact decimal text first.
 */
export function toStandardUnits(minor: bigint, decimals: number): number {
  return Number(formatMinorUnits(minor, decimals));
}
