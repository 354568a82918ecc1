/**
 * Money as the service reads and writes it: fiat currencies with their ISO 4217 minor units, and minor units as
 * exact decimal text and back, never through a float. The service, its consoles and a partner's backend share these
 * rules, so an amount means the same everywhere.
 */

/** A fiat currency the service takes amounts in: its ISO 4217 code and the digits of its minor unit. */
export interface FiatCurrency {
  code: string;
  /** Digits of the minor unit (2 for USD, 0 for JPY, 3 for BHD). */
  decimals: number;
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

/** The currency of an upper-case ISO 4217 code the service takes amounts in; undefined for any other text. */
export function fiatCurrency(code: string): FiatCurrency | undefined {
  if (!/^[A-Z]{3}$/.test(code) || !KNOWN_CODES.has(code) || NO_MINOR_UNIT.has(code)) return undefined;
  const decimals = ZERO_DECIMALS.has(code) ? 0 : THREE_DECIMALS.has(code) ? 3 : 2;
  return { code, decimals };
}

/** The currency code of a fiat amount's unit, `iso4217/USD` -> `USD`. */
export function currencyOfUnit(unit: string): string | undefined {
  return unit.startsWith('iso4217/') ? unit.slice('iso4217/'.length) : undefined;
}

/** Minor units as exact decimal text in standard units (1234 with 2 decimals -> `12.34`), never through a float. */
export function formatMinorUnits(minor: bigint, decimals: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, '0');
  const text = decimals ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
  return negative ? `-${text}` : text;
}

/**
 * Minor units as a plain decimal, as a wallet's amount field and Solana Pay's `amount` take it: no exponent, no
 * trailing zeros, a leading zero below one (`10500000` with 6 decimals -> `10.5`).
 */
export function decimalAmount(amount: bigint, decimals: number): string {
  if (amount < 0n) throw new RangeError('the amount must not be negative');
  const text = formatMinorUnits(amount, decimals);
  return decimals ? text.replace(/\.?0+$/, '') : text;
}

/** A decimal's exact value, `digits / 10^places`, with no trailing zero in its fraction (`1.50` -> 15 and 1). */
export interface ExactDecimal {
  digits: bigint;
  places: number;
}

/**
 * Reads plain decimal text (`12`, `0.5`, `1.50`): digits, optionally a point and more digits. Null for anything else:
 * a sign, an exponent, spaces, grouping, or a point without digits on both sides.
 */
export function parseDecimal(text: string): ExactDecimal | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return null;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return { digits: BigInt(`${match[1]}${fraction}`), places: fraction.length };
}

/**
 * Plain decimal text (`parseDecimal`) in minor units of `decimals` places, never through a float. A value finer than
 * the minor unit is null, or with `rounding` 'up' the next minor unit above it.
 */
export function parseMinorUnits(text: string, decimals: number, rounding: 'exact' | 'up' = 'exact'): bigint | null {
  const decimal = parseDecimal(text);
  if (!decimal) return null;
  if (decimal.places <= decimals) return decimal.digits * 10n ** BigInt(decimals - decimal.places);
  if (rounding === 'exact') return null;
  const step = 10n ** BigInt(decimal.places - decimals);
  return (decimal.digits + step - 1n) / step;
}

/**
 * A tip of `percent` (a whole number, 0 to 100) on `amount` minor units, in minor units: rounded half up to the
 * nearest minor unit (15% of 12.34 is 1.851, so 1.85; 10% of 0.05 is 0.005, so 0.01), so the tip and the amount add
 * up exactly to the total charged.
 */
export function tipOfPercent(amount: bigint, percent: number): bigint {
  if (!Number.isInteger(percent) || percent < 0 || percent > 100) throw new RangeError('percent must be 0 to 100');
  if (amount < 0n) throw new RangeError('the amount must not be negative');
  return (amount * BigInt(percent) + 50n) / 100n;
}
