import type { TokenInfo } from '../registry.ts';
import { ONE_TO_ONE, tokenAmountForFiat, type ExchangeRate } from './exchangeRate.ts';

export interface PriceQuote {
  /** Whole fiat units per whole token. */
  rate: ExchangeRate;
  /** Until when the service honours the rate; null for a token pegged to the currency. */
  expiresAt: Date | null;
}

/** Where token prices come from (D13): a fixed table on the devnet and in tests, an exchange-rate API in production. */
export interface PriceSource {
  quote(fiatCurrency: string, token: TokenInfo): Promise<PriceQuote>;
}

/** No price can be given now (no rate for the pair, the rate source failed); the API answers 502 `bad_gateway`. */
export class PriceUnavailableError extends Error {
  override readonly name = 'PriceUnavailableError';
}

/** The 1:1 quote of a token in the currency it is pegged to, or null when it is not pegged to that currency. */
export function peggedQuote(fiatCurrency: string, token: TokenInfo): PriceQuote | null {
  return token.peggedTo === fiatCurrency ? { rate: ONE_TO_ONE, expiresAt: null } : null;
}

/** The symbol a rate source prices the token by: its own, or the coin it wraps (WETH as ETH). */
export function priceSymbolOf(token: TokenInfo): string {
  return token.priceSymbol ?? token.symbol;
}

export interface TokenAmountQuote extends PriceQuote {
  /** Token minor units, rounded up. */
  amount: bigint;
}

/** Prices a fiat amount in a token: the quote and the token amount that covers the fiat amount. */
export async function quoteTokenAmount(
  source: PriceSource,
  request: { fiatCurrency: string; fiatDecimals: number; fiatAmount: bigint; token: TokenInfo },
): Promise<TokenAmountQuote> {
  const quote = await source.quote(request.fiatCurrency, request.token);
  const amount = tokenAmountForFiat({
    fiatAmount: request.fiatAmount,
    fiatDecimals: request.fiatDecimals,
    rate: quote.rate,
    tokenDecimals: request.token.decimals,
  });
  return { ...quote, amount };
}
