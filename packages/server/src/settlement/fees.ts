import { decimalAmount, parseDecimal, parseMinorUnits } from '@paygate/client/money';
import { fiatCurrency } from '../payments/currencies.ts';
import { UserFacingError } from '../userFacingError.ts';

/** A percentage as an exact fraction of one percent: `1.5` is 15/10. */
export interface Percentage {
  numerator: bigint;
  denominator: bigint;
}

export interface FixedFee {
  /** ISO 4217 code. */
  currency: string;
  /** Minor units of the currency. */
  amount: bigint;
}

/** A partner's fees (D15): a percentage of every payment plus, per currency, a fixed amount. */
export interface FeeSchedule {
  /** Decimal text, e.g. `"1.5"` for 1.5 percent. */
  percentage: string;
  fixed: FixedFee[];
}

export class FeeScheduleError extends UserFacingError {}

export const ZERO_PERCENTAGE = '0';

const PERCENTAGE = /^\d{1,2}(?:\.\d{1,4})?$/;

/**
 * Parses a percentage written as a decimal (`"1.5"` = 1.5 percent), at least 0 and below 100, with at most four
 * decimals. Returns the fraction and the text normalised (`"1.50"` -> `"1.5"`).
 */
export function parsePercentage(text: string): { value: Percentage; text: string } {
  const trimmed = text.trim();
  const decimal = PERCENTAGE.test(trimmed) ? parseDecimal(trimmed) : null;
  if (!decimal)
    throw new FeeScheduleError(
      `a percentage is a decimal from 0 to below 100 with at most 4 decimals, e.g. 1.5; got "${text}"`,
    );
  return {
    value: { numerator: decimal.digits, denominator: 10n ** BigInt(decimal.places) },
    text: decimalAmount(decimal.digits, decimal.places),
  };
}

/** Parses `USD:30`: a known ISO 4217 code and a whole number of its minor units (30 = 0.30 USD). */
export function parseFixedFee(text: string): FixedFee {
  const match = /^([A-Z]{3}):(\d{1,15})$/.exec(text.trim());
  if (!match || !fiatCurrency(match[1] as string)) {
    throw new FeeScheduleError(
      `a fixed fee is CURRENCY:MINOR_UNITS with an ISO 4217 code, e.g. USD:30 for 0.30 USD; got "${text}"`,
    );
  }
  return { currency: match[1] as string, amount: BigInt(match[2] as string) };
}

export interface FeeInput {
  /** What the buyer paid, in token minor units. */
  tokenAmount: bigint;
  /** The payment's fiat amount, in minor units of its currency. */
  fiatAmount: bigint;
  /** The fixed fee for the payment's currency, in the same minor units (0 when none is set). */
  fixedFiat: bigint;
  percentage: Percentage;
}

export interface Fees {
  /** The fixed fee in token minor units. */
  fixed: bigint;
  /** The percentage fee in token minor units. */
  percentage: bigint;
  total: bigint;
  /** What the merchant is settled: paid minus fees. */
  net: bigint;
}

/**
 * The fees of a paid payment, in the paid token's minor units, with integer arithmetic only. The fixed fee is
 * converted at the payment's own rate (tokenAmount / fiatAmount). Each part is rounded down to the token's minor
 * unit, in the merchant's favour; the fixed part is taken first and the total never exceeds what was paid.
 */
export function computeFees(input: FeeInput): Fees {
  const { tokenAmount, fiatAmount, fixedFiat, percentage } = input;
  if (tokenAmount < 0n || fiatAmount <= 0n || fixedFiat < 0n)
    throw new RangeError('amounts must be positive and fees not negative');
  const fixedUncapped = (fixedFiat * tokenAmount) / fiatAmount;
  const fixed = fixedUncapped < tokenAmount ? fixedUncapped : tokenAmount;
  const percentageUncapped = (tokenAmount * percentage.numerator) / (100n * percentage.denominator);
  const percentageFee = percentageUncapped < tokenAmount - fixed ? percentageUncapped : tokenAmount - fixed;
  const total = fixed + percentageFee;
  return { fixed, percentage: percentageFee, total, net: tokenAmount - total };
}

/**
 * The smallest payment, in the currency's minor units, whose fees leave the merchant something (D8): the amount F
 * must satisfy fixed + F * p / 100 < F, that is F > fixed * 100 / (100 - p). With no fixed fee it is 1.
 */
export function minimumPaymentAmount(fixedFiat: bigint, percentage: Percentage): bigint {
  const hundred = 100n * percentage.denominator;
  return (fixedFiat * hundred) / (hundred - percentage.numerator) + 1n;
}

/** A decimal amount of whole tokens (`"1.5"`) in minor units, rounded up when it has more decimals than the token. */
export function parseTokenAmount(text: string, decimals: number): bigint {
  const minor = parseMinorUnits(text, decimals, 'up');
  if (minor === null) throw new RangeError(`not a decimal amount: "${text}"`);
  return minor;
}
