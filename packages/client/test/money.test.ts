import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalAmount, formatMinorUnits, parseDecimal, parseMinorUnits, tipOfPercent } from '../src/money.ts';

/** Not plain decimals: signs, exponents, spaces, separators, bare points, words. */
const NOT_PLAIN_DECIMALS = ['', '-1', '+1', '1e3', '1E3', ' 1', '1 ', '1,5', '.5', '1.', '.', '1.2.3', '0x10', 'NaN'];

describe('formatMinorUnits', () => {
  it('writes every decimal place, with a leading zero below one and a sign below zero', () => {
    expect(formatMinorUnits(30n, 2)).toBe('0.30');
    expect(formatMinorUnits(12345n, 2)).toBe('123.45');
    expect(formatMinorUnits(0n, 2)).toBe('0.00');
    expect(formatMinorUnits(1n, 18)).toBe('0.000000000000000001');
    expect(formatMinorUnits(7n, 0)).toBe('7');
    expect(formatMinorUnits(-250n, 2)).toBe('-2.50');
    expect(formatMinorUnits(-1n, 3)).toBe('-0.001');
  });
});

describe('decimalAmount', () => {
  it('drops trailing zeros and the point they leave, never the zeros of the whole part', () => {
    expect(decimalAmount(10_000_000n, 6)).toBe('10');
    expect(decimalAmount(10_500_000n, 6)).toBe('10.5');
    expect(decimalAmount(9_990_000n, 6)).toBe('9.99');
    expect(decimalAmount(1n, 6)).toBe('0.000001');
    expect(decimalAmount(0n, 6)).toBe('0');
    expect(decimalAmount(123n, 0)).toBe('123');
    expect(decimalAmount(1000n, 0)).toBe('1000');
    expect(decimalAmount(100_000n, 3)).toBe('100');
  });

  it('refuses a negative amount', () => {
    expect(() => decimalAmount(-1n, 6)).toThrow(RangeError);
  });
});

describe('parseDecimal', () => {
  it('reads the exact value without the trailing zeros of the fraction', () => {
    expect(parseDecimal('1.5')).toEqual({ digits: 15n, places: 1 });
    expect(parseDecimal('1.50')).toEqual({ digits: 15n, places: 1 });
    expect(parseDecimal('02')).toEqual({ digits: 2n, places: 0 });
    expect(parseDecimal('0.000')).toEqual({ digits: 0n, places: 0 });
    expect(parseDecimal('0.0125')).toEqual({ digits: 125n, places: 4 });
    expect(parseDecimal('123456789012345678901234567890.5')).toEqual({
      digits: 1234567890123456789012345678905n,
      places: 1,
    });
  });

  it('refuses anything that is not a plain decimal', () => {
    for (const text of NOT_PLAIN_DECIMALS) expect(parseDecimal(text), text).toBeNull();
  });
});

describe('parseMinorUnits', () => {
  it('reads decimals in minor units exactly', () => {
    expect(parseMinorUnits('10', 6)).toBe(10_000_000n);
    expect(parseMinorUnits('9.99', 6)).toBe(9_990_000n);
    expect(parseMinorUnits('0.000001', 6)).toBe(1n);
    expect(parseMinorUnits('0', 6)).toBe(0n);
    expect(parseMinorUnits('12', 0)).toBe(12n);
    // Zeros past the minor unit change nothing.
    expect(parseMinorUnits('2.0000000', 6)).toBe(2_000_000n);
  });

  it('refuses a value finer than the minor unit unless asked to round it up', () => {
    expect(parseMinorUnits('0.0000001', 6)).toBeNull();
    expect(parseMinorUnits('0.5', 0)).toBeNull();
    expect(parseMinorUnits('0.0000001', 6, 'up')).toBe(1n);
    expect(parseMinorUnits('1.0000001', 6, 'up')).toBe(1_000_001n);
    expect(parseMinorUnits('0.5', 0, 'up')).toBe(1n);
    expect(parseMinorUnits('1.5', 6, 'up')).toBe(1_500_000n);
  });

  it('refuses anything that is not a plain decimal', () => {
    for (const text of NOT_PLAIN_DECIMALS) {
      expect(parseMinorUnits(text, 6), text).toBeNull();
      expect(parseMinorUnits(text, 6, 'up'), text).toBeNull();
    }
  });

  it('reads back what decimalAmount and formatMinorUnits write', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }), (minor, decimals) => {
        expect(parseMinorUnits(decimalAmount(minor, decimals), decimals)).toBe(minor);
        expect(parseMinorUnits(formatMinorUnits(minor, decimals), decimals)).toBe(minor);
      }),
    );
  });

  it('rounds up to the smallest minor amount not below the value', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), fc.integer({ min: 0, max: 12 }), (finer, decimals) => {
        const extra = 6;
        const rounded = parseMinorUnits(formatMinorUnits(finer, decimals + extra), decimals, 'up');
        const scale = 10n ** BigInt(extra);
        expect(rounded).not.toBeNull();
        expect((rounded as bigint) * scale >= finer).toBe(true);
        expect(((rounded as bigint) - 1n) * scale < finer).toBe(true);
      }),
    );
  });
});

describe('tipOfPercent', () => {
  it('rounds half up to the minor unit', () => {
    expect(tipOfPercent(1234n, 15)).toBe(185n);
    expect(tipOfPercent(1234n, 10)).toBe(123n);
    expect(tipOfPercent(5n, 10)).toBe(1n);
    expect(tipOfPercent(4n, 10)).toBe(0n);
    expect(tipOfPercent(1234n, 0)).toBe(0n);
  });

  it('is the exact percentage within half a minor unit', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n }), fc.integer({ min: 0, max: 100 }), (amount, percent) => {
        const exactTimes100 = amount * BigInt(percent);
        const difference = tipOfPercent(amount, percent) * 100n - exactTimes100;
        expect(difference > -50n && difference <= 50n).toBe(true);
      }),
    );
  });

  it('refuses a percent that is not a whole number from 0 to 100', () => {
    for (const percent of [-1, 101, 2.5, Number.NaN]) expect(() => tipOfPercent(100n, percent)).toThrow(RangeError);
  });
});
