import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refundableFiat, tokenAmountOfRefund } from '../../src/refunds/refundAmounts.ts';

describe('refund amounts', () => {
  it('gives each part the token its share of the fiat is worth, rounded down, the last part the rest', () => {
    const paid = { fiat: 1000n, token: 10_000_001n };
    const first = tokenAmountOfRefund(paid, { fiat: 0n, token: 0n }, 333n);
    expect(first).toBe(3_330_000n);
    const second = tokenAmountOfRefund(paid, { fiat: 333n, token: first! }, 667n);
    expect(second).toBe(6_670_001n);
    expect(tokenAmountOfRefund({ fiat: 1000n, token: null }, { fiat: 0n, token: 0n }, 5n)).toBeNull();
    expect(() => tokenAmountOfRefund(paid, { fiat: 900n, token: 0n }, 101n)).toThrow(RangeError);
    expect(() => tokenAmountOfRefund(paid, { fiat: 0n, token: 0n }, 0n)).toThrow(RangeError);
    expect(refundableFiat(paid, { fiat: 400n, token: 0n })).toBe(600n);
  });

  it('never refunds more than was paid, and whole refunds return exactly the token paid, in any split', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        fc.array(fc.bigInt({ min: 1n, max: 10n ** 12n }), { minLength: 1, maxLength: 12 }),
        (fiatPaid, tokenPaid, asks) => {
          const paid = { fiat: fiatPaid, token: tokenPaid };
          const refunded = { fiat: 0n, token: 0n };
          for (const ask of [...asks, fiatPaid]) {
            const refundable = refundableFiat(paid, refunded);
            if (refundable === 0n) break;
            const fiat = ask > refundable ? refundable : ask;
            const token = tokenAmountOfRefund(paid, refunded, fiat)!;
            expect(token).toBeGreaterThanOrEqual(0n);
            refunded.fiat += fiat;
            refunded.token += token;
            expect(refunded.fiat).toBeLessThanOrEqual(fiatPaid);
            expect(refunded.token).toBeLessThanOrEqual(tokenPaid);
          }
          expect(refunded).toEqual({ fiat: fiatPaid, token: tokenPaid });
        },
      ),
    );
  });
});
