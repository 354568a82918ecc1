import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExchangeRate, tokenAmountForFiat, type ExchangeRate } from '../../../src/chains/prices/exchangeRate.ts';
import { FixedPriceSource } from '../../../src/chains/prices/fixedPriceSource.ts';
import { PriceUnavailableError, quoteTokenAmount } from '../../../src/chains/prices/priceSource.ts';
import { token } from './tokens.ts';

/** Whether `tokenAmount` at `rate` is worth at least `fiatAmount`, by cross-multiplication (no division). */
function covers(
  tokenAmount: bigint,
  tokenDecimals: number,
  rate: ExchangeRate,
  fiatAmount: bigint,
  fiatDecimals: number,
): boolean {
  return (
    tokenAmount * rate.numerator * 10n ** BigInt(fiatDecimals) >=
    fiatAmount * rate.denominator * 10n ** BigInt(tokenDecimals)
  );
}

const decimalRateText = fc
  .tuple(
    fc.bigInt({ min: 0n, max: 10n ** 12n }),
    fc.bigInt({ min: 0n, max: 10n ** 12n }),
    fc.integer({ min: 0, max: 12 }),
  )
  .filter(([whole, fraction]) => whole > 0n || fraction > 0n)
  .map(([whole, fraction, digits]) =>
    digits === 0 ? `${whole}` : `${whole}.${fraction.toString().padStart(digits, '0').slice(-digits)}`,
  )
  .filter((text) => /[1-9]/.test(text));

describe('parseExchangeRate', () => {
  it('reads decimal and exponent notation exactly', () => {
    expect(parseExchangeRate('3000')).toEqual({ numerator: 3000n, denominator: 1n });
    expect(parseExchangeRate('0.92')).toEqual({ numerator: 23n, denominator: 25n });
    expect(parseExchangeRate('3000.50')).toEqual({ numerator: 6001n, denominator: 2n });
    expect(parseExchangeRate('2.5e-5')).toEqual({ numerator: 1n, denominator: 40_000n });
    expect(parseExchangeRate('1.2E3')).toEqual({ numerator: 1200n, denominator: 1n });
    expect(parseExchangeRate('0.000000000000000001')).toEqual({ numerator: 1n, denominator: 10n ** 18n });
  });

  it('refuses anything that is not a positive decimal', () => {
    for (const text of [
      '',
      '0',
      '0.000',
      '-1',
      '1,5',
      ' 1',
      '1 ',
      'NaN',
      'Infinity',
      '1e',
      '.5',
      '5.',
      '0x10',
      '1e5000',
    ]) {
      expect(() => parseExchangeRate(text), text).toThrow(RangeError);
    }
  });

  it('keeps the value of any decimal text', () => {
    fc.assert(
      fc.property(decimalRateText, (text) => {
        const rate = parseExchangeRate(text);
        const [whole = '', fraction = ''] = text.split('.');
        // numerator / denominator === digits / 10^fractionLength
        expect(rate.numerator * 10n ** BigInt(fraction.length)).toBe(BigInt(whole + fraction) * rate.denominator);
      }),
    );
  });
});

describe('tokenAmountForFiat', () => {
  it('gives the smallest token amount whose value covers the fiat amount', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 13n }),
        fc.constantFrom(0, 2, 3),
        fc.constantFrom(0, 2, 6, 9, 18),
        decimalRateText,
        (fiatAmount, fiatDecimals, tokenDecimals, rateText) => {
          const rate = parseExchangeRate(rateText);
          const amount = tokenAmountForFiat({ fiatAmount, fiatDecimals, rate, tokenDecimals });
          expect(covers(amount, tokenDecimals, rate, fiatAmount, fiatDecimals)).toBe(true);
          expect(amount > 0n && !covers(amount - 1n, tokenDecimals, rate, fiatAmount, fiatDecimals)).toBe(true);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('rounds up to the token minor unit', () => {
    // $10.00 at 3000 USD/ETH is 0.003333… ETH.
    expect(
      tokenAmountForFiat({ fiatAmount: 1000n, fiatDecimals: 2, rate: parseExchangeRate('3000'), tokenDecimals: 18 }),
    ).toBe(3_333_333_333_333_334n);
    // €10.00 at 0.92 EUR/USDC is 10.869565… USDC.
    expect(
      tokenAmountForFiat({ fiatAmount: 1000n, fiatDecimals: 2, rate: parseExchangeRate('0.92'), tokenDecimals: 6 }),
    ).toBe(10_869_566n);
    // ¥1 at 150 JPY per 2-decimal token is 0.00666… tokens: one minor unit.
    expect(
      tokenAmountForFiat({ fiatAmount: 1n, fiatDecimals: 0, rate: parseExchangeRate('150'), tokenDecimals: 2 }),
    ).toBe(1n);
    expect(
      tokenAmountForFiat({ fiatAmount: 0n, fiatDecimals: 2, rate: parseExchangeRate('3000'), tokenDecimals: 18 }),
    ).toBe(0n);
    expect(() =>
      tokenAmountForFiat({ fiatAmount: -1n, fiatDecimals: 2, rate: parseExchangeRate('1'), tokenDecimals: 6 }),
    ).toThrow(RangeError);
  });
});

describe('pegged tokens', () => {
  const prices = new FixedPriceSource({});

  it('convert 1:1 across currency and token decimals, with no expiry', () => {
    fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.constantFrom(0, 2, 3),
        fc.constantFrom(6, 9, 18),
        async (fiatAmount, fiatDecimals, tokenDecimals) => {
          const quote = await quoteTokenAmount(prices, {
            fiatCurrency: 'USD',
            fiatDecimals,
            fiatAmount,
            token: token('USDC', tokenDecimals, 'USD'),
          });
          expect(quote.expiresAt).toBeNull();
          expect(quote.rate).toEqual({ numerator: 1n, denominator: 1n });
          expect(quote.amount).toBe(fiatAmount * 10n ** BigInt(tokenDecimals - fiatDecimals));
        },
      ),
    );
  });

  it('round up when the token has fewer decimals than the currency', async () => {
    const quote = await quoteTokenAmount(prices, {
      fiatCurrency: 'BHD',
      fiatDecimals: 3,
      fiatAmount: 1_001n,
      token: token('BHDT', 2, 'BHD'),
    });
    expect(quote.amount).toBe(101n);
  });

  it('are priced like any token in another currency', async () => {
    await expect(prices.quote('EUR', token('USDC', 6, 'USD'))).rejects.toBeInstanceOf(PriceUnavailableError);
  });
});
