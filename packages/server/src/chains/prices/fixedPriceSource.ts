import { systemClock, type Clock } from '../../clock.ts';
import type { TokenInfo } from '../registry.ts';
import { parseExchangeRate, type ExchangeRate } from './exchangeRate.ts';
import { peggedQuote, PriceUnavailableError, type PriceQuote, type PriceSource, priceSymbolOf } from './priceSource.ts';

export interface FixedPriceSourceOptions {
  clock?: Clock;
  /** How long a quote is honoured; 10 minutes unless given. */
  quoteTtlMs?: number;
}

/**
 * Prices from a table written in configuration, keyed `SYMBOL/CURRENCY`, e.g. `{ 'ETH/USD': '3000', 'SOL/USD':
 * '150', 'USDC/EUR': '0.92' }`: for the devnet and tests, where no market exists.
 */
export class FixedPriceSource implements PriceSource {
  private readonly rates = new Map<string, ExchangeRate>();
  private readonly clock: Clock;
  private readonly quoteTtlMs: number;

  constructor(table: Record<string, string>, options: FixedPriceSourceOptions = {}) {
    for (const [pair, text] of Object.entries(table)) {
      if (!/^[^/\s]+\/[A-Z]{3}$/.test(pair))
        throw new RangeError(`a price pair is written SYMBOL/CURRENCY: ${JSON.stringify(pair)}`);
      this.rates.set(pair, parseExchangeRate(text));
    }
    this.clock = options.clock ?? systemClock;
    this.quoteTtlMs = options.quoteTtlMs ?? 10 * 60_000;
  }

  async quote(fiatCurrency: string, token: TokenInfo): Promise<PriceQuote> {
    const pegged = peggedQuote(fiatCurrency, token);
    if (pegged) return pegged;
    const symbol = priceSymbolOf(token);
    const rate = this.rates.get(`${symbol}/${fiatCurrency}`);
    if (!rate) throw new PriceUnavailableError(`no price for ${symbol} in ${fiatCurrency}`);
    return { rate, expiresAt: new Date(this.clock.now().getTime() + this.quoteTtlMs) };
  }
}
