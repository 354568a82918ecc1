import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fiatMinorUnitsOf } from '../../src/x402/fiatAmount.ts';

describe('the fiat amount of an x402 payment', () => {
  it('is the token amount at its peg, rounded up to the minor unit', () => {
    // USDC (6 decimals) in USD cents.
    expect(fiatMinorUnitsOf(1n, 6, 2)).toBe(1n);
    expect(fiatMinorUnitsOf(1_000n, 6, 2)).toBe(1n);
    expect(fiatMinorUnitsOf(10_000n, 6, 2)).toBe(1n);
    expect(fiatMinorUnitsOf(10_001n, 6, 2)).toBe(2n);
    expect(fiatMinorUnitsOf(123_456n, 6, 2)).toBe(13n);
    expect(fiatMinorUnitsOf(1_000_000n, 6, 2)).toBe(100n);
    // A token with fewer decimals than its currency.
    expect(fiatMinorUnitsOf(7n, 1, 2)).toBe(70n);
    expect(fiatMinorUnitsOf(5n, 2, 2)).toBe(5n);
    expect(() => fiatMinorUnitsOf(0n, 6, 2)).toThrow(RangeError);
  });

  it('is never below what was paid, and less than one minor unit above it', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.integer({ min: 2, max: 18 }), (value, decimals) => {
        const fiat = fiatMinorUnitsOf(value, decimals, 2);
        const scale = 10n ** BigInt(decimals - 2);
        expect(fiat * scale).toBeGreaterThanOrEqual(value);
        expect(fiat * scale - value).toBeLessThan(scale);
      }),
    );
  });
});
