// The service's rules for fiat currencies, as the consoles need them to read and write amounts. The server keeps the
// same rules (payments/currencies.ts, money.ts); a server test holds the two to the same answers for every currency.

/** Minor units as exact decimal text in standard units (1234 with 2 decimals -> `12.34`), never through a float. */
export function formatMinorUnits(minor: bigint, decimals: number): string {
  const sign = minor < 0n ? '-' : '';
  const digits = (minor < 0n ? -minor : minor).toString().padStart(decimals + 1, '0');
  if (!decimals) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** A fiat currency as the consoles use it: its ISO 4217 code and the digits of its minor unit. */
export interface FiatCurrency {
  code: string;
  decimals: number;
}

const KNOWN_CODES = new Set(Intl.supportedValuesOf('currency'));

// ISO 4217's minor units, not the browser's display digits, which differ for some currencies (IDR, HUF, IQD...).
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
/** Codes without a minor unit (precious metals, fund and testing codes): not amounts the service takes. */
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

/** A currency code the service takes amounts in, with its minor unit's digits; undefined for any other text. */
export function fiatCurrency(code: string): FiatCurrency | undefined {
  if (!/^[A-Z]{3}$/.test(code) || !KNOWN_CODES.has(code) || NO_MINOR_UNIT.has(code)) return undefined;
  const decimals = ZERO_DECIMALS.has(code) ? 0 : THREE_DECIMALS.has(code) ? 3 : 2;
  return { code, decimals };
}

/** The currency code of a fiat amount's unit, `iso4217/USD` -> `USD`. */
export function currencyOfUnit(unit: string): string | undefined {
  return unit.startsWith('iso4217/') ? unit.slice('iso4217/'.length) : undefined;
}

/**
 * Decimal text in standard units as minor units (`12.34` with 2 decimals -> 1234n), never through a float;
 * undefined for anything else: a sign, an exponent, grouping, or more digits after the point than the currency has.
 */
export function minorUnitsOf(text: string, decimals: number): bigint | undefined {
  const match = /^(\d{1,18})(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) return undefined;
  return BigInt(`${match[1]}${fraction.padEnd(decimals, '0')}`);
}
