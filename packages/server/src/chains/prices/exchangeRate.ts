import { parseDecimal } from '@paygate/client/money';

/** The price of one whole token in whole units of a fiat currency, as an exact fraction. */
export interface ExchangeRate {
  numerator: bigint;
  denominator: bigint;
}

/** A plain decimal, then optionally an exponent of up to three digits. */
const SCIENTIFIC = /^([\d.]+)(?:[eE]([-+]?\d{1,3}))?$/;

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function reduced(numerator: bigint, denominator: bigint): ExchangeRate {
  const divisor = gcd(numerator, denominator);
  return { numerator: numerator / divisor, denominator: denominator / divisor };
}

/** Parses a positive decimal rate such as `"3000"`, `"0.92"` or `"2.5e-5"` exactly, never through a float. */
export function parseExchangeRate(text: string): ExchangeRate {
  const match = SCIENTIFIC.exec(text);
  const decimal = match ? parseDecimal(match[1] as string) : null;
  if (!match || !decimal) throw new RangeError(`not a decimal exchange rate: ${JSON.stringify(text)}`);
  if (decimal.digits === 0n) throw new RangeError(`an exchange rate must be positive: ${JSON.stringify(text)}`);
  const exponent = Number(match[2] ?? '0') - decimal.places;
  return exponent >= 0
    ? reduced(decimal.digits * 10n ** BigInt(exponent), 1n)
    : reduced(decimal.digits, 10n ** BigInt(-exponent));
}

export const ONE_TO_ONE: ExchangeRate = { numerator: 1n, denominator: 1n };

function ceilDiv(dividend: bigint, divisor: bigint): bigint {
  return (dividend + divisor - 1n) / divisor;
}

export interface FiatToTokenConversion {
  /** Fiat minor units (cents for USD). */
  fiatAmount: bigint;
  /** Digits of the currency's minor unit: 2 for USD, 0 for JPY, 3 for BHD. */
  fiatDecimals: number;
  rate: ExchangeRate;
  tokenDecimals: number;
}

/**
 * The smallest token amount (in token minor units) whose value at `rate` covers the fiat amount: the exact
 * quotient rounded up to the token's minor unit, so the merchant never receives less than asked.
 */
export function tokenAmountForFiat({ fiatAmount, fiatDecimals, rate, tokenDecimals }: FiatToTokenConversion): bigint {
  if (fiatAmount < 0n) throw new RangeError('a fiat amount cannot be negative');
  // token = fiat / 10^fiatDecimals / rate * 10^tokenDecimals
  const dividend = fiatAmount * rate.denominator * 10n ** BigInt(tokenDecimals);
  const divisor = rate.numerator * 10n ** BigInt(fiatDecimals);
  return ceilDiv(dividend, divisor);
}
