import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExchangeRate } from '../../src/chains/prices/exchangeRate.ts';
import {
  DataThresholdError,
  effectiveDataThreshold,
  formatDataThreshold,
  isAboveDataThreshold,
  parseDataThreshold,
} from '../../src/gateway/dataCollection/threshold.ts';
import {
  parseMerchantDataThreshold,
  parsePartnerDataThreshold,
} from '../../src/gateway/dataCollection/thresholdSettings.ts';

describe('buyer data thresholds', () => {
  it('parses a currency amount, a bare amount in the payment currency, and the merchant keywords', () => {
    expect(parseDataThreshold('USD:100000')).toEqual({ currency: 'USD', amount: 100000n });
    expect(parseDataThreshold('250')).toEqual({ currency: null, amount: 250n });
    expect(parsePartnerDataThreshold('none')).toBeNull();
    expect(parseMerchantDataThreshold('inherit')).toEqual({ kind: 'inherit' });
    expect(parseMerchantDataThreshold('none')).toEqual({ kind: 'never' });
    expect(parseMerchantDataThreshold('EUR:0')).toEqual({
      kind: 'threshold',
      threshold: { currency: 'EUR', amount: 0n },
    });
    for (const bad of ['usd:100', 'USD:', 'USD:1.5', '-5', 'XAU:100', 'ABC:100', 'USD:100:1', '']) {
      expect(() => parseDataThreshold(bad), bad).toThrow(DataThresholdError);
    }
  });

  it('formats what it parses', () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom('USD', 'EUR', 'JPY'), { nil: null }),
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        (currency, amount) => {
          expect(parseDataThreshold(formatDataThreshold({ currency, amount }))).toEqual({ currency, amount });
        },
      ),
    );
  });

  it("takes the merchant's override over the partner's threshold", () => {
    const partner = { currency: 'USD', amount: 100000n };
    const own = { currency: 'EUR', amount: 5n };
    expect(effectiveDataThreshold(partner, { kind: 'inherit' })).toBe(partner);
    expect(effectiveDataThreshold(partner, { kind: 'never' })).toBeNull();
    expect(effectiveDataThreshold(null, { kind: 'threshold', threshold: own })).toBe(own);
    expect(effectiveDataThreshold(null, { kind: 'inherit' })).toBeNull();
  });

  it('asks above the amount, not at it, in the same currency or in the payment currency', () => {
    const usd = { currency: 'USD', amount: 100000n };
    expect(isAboveDataThreshold({ currency: 'USD', amount: 100000n }, usd, null)).toBe(false);
    expect(isAboveDataThreshold({ currency: 'USD', amount: 100001n }, usd, null)).toBe(true);
    expect(isAboveDataThreshold({ currency: 'JPY', amount: 501n }, { currency: null, amount: 500n }, null)).toBe(true);
  });

  it('converts another currency exactly, minor units included, and asks when no rate is known', () => {
    // 1 USD = 0.92 EUR: 1000.00 USD is 920.00 EUR.
    const usdInEur = parseExchangeRate('0.92');
    const usd = { currency: 'USD', amount: 100000n };
    expect(isAboveDataThreshold({ currency: 'EUR', amount: 92000n }, usd, usdInEur)).toBe(false);
    expect(isAboveDataThreshold({ currency: 'EUR', amount: 92001n }, usd, usdInEur)).toBe(true);
    // JPY has no minor unit: 1 USD = 150 JPY, 1000.00 USD = 150000 JPY.
    expect(isAboveDataThreshold({ currency: 'JPY', amount: 150000n }, usd, parseExchangeRate('150'))).toBe(false);
    expect(isAboveDataThreshold({ currency: 'JPY', amount: 150001n }, usd, parseExchangeRate('150'))).toBe(true);
    expect(isAboveDataThreshold({ currency: 'EUR', amount: 1n }, usd, null)).toBe(true);
  });
});
