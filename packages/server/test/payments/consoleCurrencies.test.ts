import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as consoles from '../../../web/src/ui/money.ts';
import { formatMinorUnits } from '../../src/money.ts';
import { fiatCurrency } from '../../src/payments/currencies.ts';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

// The consoles are browser code that imports nothing of the server, so they keep their own copy of its currency
// rules: an amount they read or write with other digits than the service's would be another amount.
describe("the consoles' currency rules are the service's", () => {
  it('take the same currency codes, with the same minor-unit digits', () => {
    const everyThreeLetterCode = [...LETTERS].flatMap((a) =>
      [...LETTERS].flatMap((b) => [...LETTERS].map((c) => a + b + c)),
    );
    for (const code of [...everyThreeLetterCode, 'usd', 'US', 'USDC', '']) {
      const service = fiatCurrency(code);
      expect(consoles.fiatCurrency(code), code).toEqual(service && { code: service.code, decimals: service.decimals });
    }
  });

  it('write minor units as the same decimal text', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
        fc.integer({ min: 0, max: 24 }),
        (minor, decimals) => {
          expect(consoles.formatMinorUnits(minor, decimals)).toBe(formatMinorUnits(minor, decimals));
        },
      ),
    );
  });
});
