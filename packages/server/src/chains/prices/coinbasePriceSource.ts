import { systemClock, type Clock } from '../../clock.ts';
import type { TokenInfo } from '../registry.ts';
import { parseExchangeRate, type ExchangeRate } from './exchangeRate.ts';
import { peggedQuote, PriceUnavailableError, type PriceQuote, type PriceSource, priceSymbolOf } from './priceSource.ts';

export interface CoinbasePriceSourceOptions {
  /** `https://api.coinbase.com` unless given. */
  baseUrl?: string;
  /** How long fetched rates are reused; 60 s unless given. */
  cacheTtlMs?: number;
  /** How long a quote is honoured; 10 minutes unless given. */
  quoteTtlMs?: number;
  /** Per request; 5 s unless given. */
  timeoutMs?: number;
  clock?: Clock;
}

interface CachedRates {
  fetchedAt: number;
  rates: Map<string, ExchangeRate>;
}

/**
 * Prices from Coinbase's public exchange-rate endpoint (`GET /v2/exchange-rates?currency=ETH` answers
 * `{"data": {"currency": "ETH", "rates": {"USD": "3000.12", ...}}}`: fiat per one token). One request prices a
 * token in every currency; answers are cached per token and concurrent misses share one request.
 */
export class CoinbasePriceSource implements PriceSource {
  private readonly baseUrl: string;
  private readonly cacheTtlMs: number;
  private readonly quoteTtlMs: number;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly cache = new Map<string, CachedRates>();
  private readonly inFlight = new Map<string, Promise<CachedRates>>();

  constructor(options: CoinbasePriceSourceOptions = {}) {
    this.baseUrl = (options.baseUrl ?? 'https://api.coinbase.com').replace(/\/+$/, '');
    this.cacheTtlMs = options.cacheTtlMs ?? 60_000;
    this.quoteTtlMs = options.quoteTtlMs ?? 10 * 60_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.clock = options.clock ?? systemClock;
  }

  async quote(fiatCurrency: string, token: TokenInfo): Promise<PriceQuote> {
    const pegged = peggedQuote(fiatCurrency, token);
    if (pegged) return pegged;
    const symbol = priceSymbolOf(token);
    const { rates } = await this.ratesOf(symbol);
    const rate = rates.get(fiatCurrency);
    if (!rate) throw new PriceUnavailableError(`the exchange-rate API has no price for ${symbol} in ${fiatCurrency}`);
    return { rate, expiresAt: new Date(this.clock.now().getTime() + this.quoteTtlMs) };
  }

  private async ratesOf(symbol: string): Promise<CachedRates> {
    const cached = this.cache.get(symbol);
    if (cached && this.clock.now().getTime() - cached.fetchedAt < this.cacheTtlMs) return cached;
    let pending = this.inFlight.get(symbol);
    if (!pending) {
      pending = this.fetchRates(symbol).finally(() => this.inFlight.delete(symbol));
      this.inFlight.set(symbol, pending);
    }
    const fresh = await pending;
    this.cache.set(symbol, fresh);
    return fresh;
  }

  private async fetchRates(symbol: string): Promise<CachedRates> {
    const url = `${this.baseUrl}/v2/exchange-rates?currency=${encodeURIComponent(symbol)}`;
    let body: unknown;
    try {
      const response = await fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new PriceUnavailableError(`the exchange-rate API answered ${response.status} for ${symbol}`);
      }
      body = await response.json();
    } catch (error) {
      if (error instanceof PriceUnavailableError) throw error;
      const reason =
        error instanceof Error && error.name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : error instanceof SyntaxError
            ? 'the answer is not JSON'
            : 'the request failed';
      throw new PriceUnavailableError(`the exchange-rate API is unavailable for ${symbol}: ${reason}`, {
        cause: error,
      });
    }
    return { fetchedAt: this.clock.now().getTime(), rates: parseRates(body, symbol) };
  }
}

function parseRates(body: unknown, symbol: string): Map<string, ExchangeRate> {
  const data = (body as { data?: { currency?: unknown; rates?: unknown } } | null)?.data;
  const rates = data?.rates;
  if (data?.currency !== symbol || typeof rates !== 'object' || rates === null) {
    throw new PriceUnavailableError(`the exchange-rate API answered for ${symbol} in an unexpected shape`);
  }
  const parsed = new Map<string, ExchangeRate>();
  for (const [currency, text] of Object.entries(rates)) {
    // One odd entry must not take down the others; it is simply not offered.
    if (typeof text !== 'string') continue;
    try {
      parsed.set(currency, parseExchangeRate(text));
    } catch {
      // Not offered, like a rate that is not a string.
    }
  }
  return parsed;
}
