import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeFees,
  FeeScheduleError,
  minimumPaymentAmount,
  parseFixedFee,
  parsePercentage,
  parseTokenAmount,
} from '../../src/settlement/fees.ts';

/** Percent text with up to four decimals below 100, e.g. `1.5`, `0.0125`. */
const percentageText = fc
  .tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 4 }))
  .map(([whole, fraction, digits]) =>
    digits ? `${whole}.${String(fraction).padStart(4, '0').slice(0, digits)}` : `${whole}`,
  );

/** Exact decimal fraction of a percent text, read independently of parsePercentage: [numerator, denominator]. */
function fractionOf(text: string): [bigint, bigint] {
  const [whole, fraction = ''] = text.split('.');
  return [BigInt(`${whole}${fraction}`), 10n ** BigInt(fraction.length)];
}

describe('fee schedule parsing', () => {
  it('reads percentages exactly and normalises them', () => {
    expect(parsePercentage('1.5')).toEqual({ value: { numerator: 15n, denominator: 10n }, text: '1.5' });
    expect(parsePercentage('1.50')).toEqual({ value: { numerator: 15n, denominator: 10n }, text: '1.5' });
    expect(parsePercentage('02')).toEqual({ value: { numerator: 2n, denominator: 1n }, text: '2' });
    expect(parsePercentage('0.0125').text).toBe('0.0125');
    expect(parsePercentage('0').value).toEqual({ numerator: 0n, denominator: 1n });
  });

  it('refuses percentages of 100 or more, negative, with over four decimals, or not decimal', () => {
    for (const bad of ['100', '150', '-1', '1.23456', '1e2', 'abc', '', '1.', '.5']) {
      expect(() => parsePercentage(bad), bad).toThrow(FeeScheduleError);
    }
  });

  it('reads fixed fees as currency and minor units, refusing unknown currencies and malformed text', () => {
    expect(parseFixedFee('USD:30')).toEqual({ currency: 'USD', amount: 30n });
    expect(parseFixedFee('JPY:50')).toEqual({ currency: 'JPY', amount: 50n });
    for (const bad of ['usd:30', 'USD:-1', 'USD:0.30', 'ZZZ:10', 'XAU:1', 'USD', ':30']) {
      expect(() => parseFixedFee(bad), bad).toThrow(FeeScheduleError);
    }
  });

  it('parses token amounts in whole units, rounding extra decimals up', () => {
    expect(parseTokenAmount('0', 6)).toBe(0n);
    expect(parseTokenAmount('1.5', 6)).toBe(1_500_000n);
    expect(parseTokenAmount('0.0000001', 6)).toBe(1n);
    expect(parseTokenAmount('2.0000000', 6)).toBe(2_000_000n);
    expect(() => parseTokenAmount('1,5', 6)).toThrow(RangeError);
  });
});

describe('computeFees', () => {
  it('takes 1.5 % plus 0.30 USD of a 10.00 USD payment paid with 10 USDC', () => {
    const fees = computeFees({
      tokenAmount: 10_000_000n,
      fiatAmount: 1000n,
      fixedFiat: 30n,
      percentage: parsePercentage('1.5').value,
    });
    expect(fees).toEqual({ fixed: 300_000n, percentage: 150_000n, total: 450_000n, net: 9_550_000n });
  });

  it('converts the fixed fee at the payment own rate and rounds each part down', () => {
    // 9.99 EUR paid with 9,199,633 units: 0.30 EUR = 30 * 9,199,633 / 999 = 276,265.25... -> 276,265.
    const fees = computeFees({
      tokenAmount: 9_199_633n,
      fiatAmount: 999n,
      fixedFiat: 30n,
      percentage: parsePercentage('2.9').value,
    });
    expect(fees.fixed).toBe(276_265n);
    // 2.9 % of 9,199,633 = 266,789.357 -> 266,789.
    expect(fees.percentage).toBe(266_789n);
    expect(fees.net).toBe(9_199_633n - 276_265n - 266_789n);
  });

  it('charges nothing under the default schedule', () => {
    expect(
      computeFees({ tokenAmount: 123n, fiatAmount: 1n, fixedFiat: 0n, percentage: parsePercentage('0').value }),
    ).toEqual({
      fixed: 0n,
      percentage: 0n,
      total: 0n,
      net: 123n,
    });
  });

  it('never takes more than was paid when the schedule grew after the payment was made', () => {
    const fees = computeFees({
      tokenAmount: 1_000_000n,
      fiatAmount: 100n,
      fixedFiat: 500n,
      percentage: parsePercentage('50').value,
    });
    expect(fees).toEqual({ fixed: 1_000_000n, percentage: 0n, total: 1_000_000n, net: 0n });
  });

  it('holds for random amounts and schedules: exact parts, rounding down, totals adding up', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.bigInt({ min: 1n, max: 10n ** 15n }),
        fc.bigInt({ min: 0n, max: 10n ** 6n }),
        percentageText,
        (tokenAmount, fiatAmount, fixedFiat, percentText) => {
          const [numerator, denominator] = fractionOf(percentText);
          const fees = computeFees({
            tokenAmount,
            fiatAmount,
            fixedFiat,
            percentage: parsePercentage(percentText).value,
          });
          expect(fees.total).toBe(fees.fixed + fees.percentage);
          expect(fees.net + fees.total).toBe(tokenAmount);
          expect(fees.net >= 0n && fees.fixed >= 0n && fees.percentage >= 0n).toBe(true);
          const fixedExact = fixedFiat * tokenAmount; // over fiatAmount
          const percentExact = tokenAmount * numerator; // over 100 * denominator
          if (fixedExact < tokenAmount * fiatAmount) {
            // Uncapped: the largest whole amount not above the exact value.
            expect(fees.fixed * fiatAmount <= fixedExact && fixedExact < (fees.fixed + 1n) * fiatAmount).toBe(true);
          } else {
            expect(fees.fixed).toBe(tokenAmount);
          }
          if (fees.total < tokenAmount) {
            expect(
              fees.percentage * 100n * denominator <= percentExact &&
                percentExact < (fees.percentage + 1n) * 100n * denominator,
            ).toBe(true);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('leaves the merchant something on every payment at or above the minimum, and the minimum is the least such amount', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 6n }),
        percentageText,
        fc.bigInt({ min: 0n, max: 10n ** 6n }),
        (fixedFiat, percentText, extra) => {
          const percentage = parsePercentage(percentText).value;
          const [numerator, denominator] = fractionOf(percentText);
          const minimum = minimumPaymentAmount(fixedFiat, percentage);
          // Fees in fiat terms stay below the amount from the minimum on, and not just below it.
          const feesBelow = (amount: bigint) =>
            fixedFiat * 100n * denominator + amount * numerator < amount * 100n * denominator;
          expect(feesBelow(minimum)).toBe(true);
          if (minimum > 1n) expect(feesBelow(minimum - 1n)).toBe(false);
          // Paid at any rate (token units per fiat unit from 1 to 10^12), the net is positive.
          const fiatAmount = minimum + extra;
          for (const rate of [1n, 7n, 10_000n, 10n ** 12n]) {
            const fees = computeFees({ tokenAmount: fiatAmount * rate, fiatAmount, fixedFiat, percentage });
            expect(fees.net > 0n).toBe(true);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('sums over many payments to the same totals as the sum of parts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.bigInt({ min: 100n, max: 10n ** 9n }), fc.bigInt({ min: 1n, max: 10n ** 6n })), {
          minLength: 1,
          maxLength: 50,
        }),
        fc.bigInt({ min: 0n, max: 99n }),
        percentageText,
        (payments, fixedFiat, percentText) => {
          const percentage = parsePercentage(percentText).value;
          const all = payments.map(([fiatAmount, rate]) => ({
            paid: fiatAmount * rate,
            ...computeFees({ tokenAmount: fiatAmount * rate, fiatAmount, fixedFiat, percentage }),
          }));
          const sum = (pick: (fees: (typeof all)[number]) => bigint) =>
            all.reduce((total, fees) => total + pick(fees), 0n);
          expect(sum((fees) => fees.total) + sum((fees) => fees.net)).toBe(sum((fees) => fees.paid));
          expect(sum((fees) => fees.total)).toBe(sum((fees) => fees.fixed) + sum((fees) => fees.percentage));
        },
      ),
      { numRuns: 300 },
    );
  });
});
