import { describe, expect, it } from 'vitest';
import { FixedPriceSource } from '../../../src/chains/prices/fixedPriceSource.ts';
import { PriceUnavailableError, quoteTokenAmount } from '../../../src/chains/prices/priceSource.ts';
import { token } from './tokens.ts';

const now = new Date('2026-01-01T00:00:00Z');
const clock = { now: () => now };

describe('FixedPriceSource', () => {
  const prices = new FixedPriceSource(
    { 'ETH/USD': '3000', 'SOL/USD': '150', 'USDC/EUR': '0.92' },
    { clock, quoteTtlMs: 120_000 },
  );

  it('quotes the configured rate until now plus the quote lifetime', async () => {
    const quote = await quoteTokenAmount(prices, {
      fiatCurrency: 'USD',
      fiatDecimals: 2,
      fiatAmount: 1500n,
      token: token('SOL', 9),
    });
    expect(quote).toEqual({
      rate: { numerator: 150n, denominator: 1n },
      expiresAt: new Date(now.getTime() + 120_000),
      amount: 100_000_000n,
    });
    const euros = await quoteTokenAmount(prices, {
      fiatCurrency: 'EUR',
      fiatDecimals: 2,
      fiatAmount: 1000n,
      token: token('USDC', 6, 'USD'),
    });
    expect(euros.amount).toBe(10_869_566n);
  });

  it('has no price for a pair it was not given', async () => {
    await expect(prices.quote('JPY', token('ETH', 18))).rejects.toThrow(
      new PriceUnavailableError('no price for ETH in JPY'),
    );
    await expect(prices.quote('USD', token('BTC', 8))).rejects.toBeInstanceOf(PriceUnavailableError);
  });

  it('prices a wrapped coin by the pair of the coin it wraps', async () => {
    const weth = { ...token('WETH', 18), priceSymbol: 'ETH' };
    expect((await prices.quote('USD', weth)).rate).toEqual({ numerator: 3000n, denominator: 1n });
    await expect(prices.quote('EUR', weth)).rejects.toThrow(new PriceUnavailableError('no price for ETH in EUR'));
  });

  it('refuses a malformed table when it is built', () => {
    expect(() => new FixedPriceSource({ 'ETH/USD': '3,000' })).toThrow(RangeError);
    expect(() => new FixedPriceSource({ 'ETH/USD': '0' })).toThrow(RangeError);
    expect(() => new FixedPriceSource({ ETHUSD: '3000' })).toThrow(RangeError);
  });
});
