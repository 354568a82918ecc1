import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMinorUnits, minorUnitsOf } from '../../src/ui/money.ts';

describe('minorUnitsOf: an amount typed in a console, as minor units', () => {
  it('reads plain decimals exactly, whatever their size', () => {
    expect(minorUnitsOf('12.34', 2)).toBe(1234n);
    expect(minorUnitsOf(' 12.3 ', 2)).toBe(1230n);
    expect(minorUnitsOf('12', 2)).toBe(1200n);
    expect(minorUnitsOf('1500', 0)).toBe(1500n);
    expect(minorUnitsOf('0.125', 3)).toBe(125n);
    // 2^53 + 1 cents, which a float would round.
    expect(minorUnitsOf('90071992547409.93', 2)).toBe(9_007_199_254_740_993n);
  });

  it('refuses what is not one: more decimals than the currency has, signs, exponents, grouping, empty', () => {
    for (const text of ['12.345', '-1', '+1', '1e3', '1,000', '1 000', '', '.5', '5.', 'ten', '0x10']) {
      expect(minorUnitsOf(text, 2), text).toBeUndefined();
    }
    expect(minorUnitsOf('1.5', 0)).toBeUndefined();
  });

  it('reads back what formatMinorUnits writes', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }), fc.constantFrom(0, 2, 3), (minor, decimals) => {
        expect(minorUnitsOf(formatMinorUnits(minor, decimals), decimals)).toBe(minor);
      }),
    );
  });
});
