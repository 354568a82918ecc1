import { PriceUnavailableError, type PriceSource, quoteTokenAmount } from '../chains/prices/priceSource.ts';
import type { ChainRegistry, NetworkInfo, TokenInfo } from '../chains/registry.ts';
import { paymentMethodFor } from '../paymentMethods/registry.ts';
import { fiatCurrency } from '../payments/currencies.ts';
import type { PaymentRow } from '../payments/paymentResource.ts';

/** A network and token the payment can be paid with, and the amount due in it, before any account is known. */
export interface AcceptedOption {
  network: NetworkInfo;
  token: TokenInfo;
  /** Token minor units, as the gateway's options quote them now. */
  amount: bigint;
  /** Until when the quote holds; null for a token pegged to the payment's currency. */
  expiresAt: Date | null;
}

/**
 * Every network and token the gateway would offer the payment in, with the amount it would quote now: the tokens
 * a payment method of the gateway pays with, on networks with a node to read, priced by the same source and
 * rounding as the gateway's options (`quoteTokenAmount`). A token without a price now is left out, as the gateway
 * leaves it out of its options. Networks and tokens keep the registry's order.
 *
 * With `waitMs`, a token whose price has not come within that time is left out too, so a slow rate source delays
 * a page by that much at most (pegged tokens need no source and are always in); its quote still completes and
 * warms the source's cache.
 */
export async function acceptedOptions(
  chains: ChainRegistry,
  prices: PriceSource,
  payment: Pick<PaymentRow, 'fiat_currency' | 'fiat_value'>,
  options: { waitMs?: number } = {},
): Promise<AcceptedOption[]> {
  const fiatDecimals = fiatCurrency(payment.fiat_currency)?.decimals ?? 2;
  const offered = chains.networks.flatMap((network) =>
    network.rpcUrl
      ? network.tokens.filter((token) => paymentMethodFor(network, token)).map((token) => ({ network, token }))
      : [],
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late =
    options.waitMs === undefined
      ? undefined
      : new Promise<AcceptedOption[]>((resolve) => {
          timer = setTimeout(() => resolve([]), options.waitMs);
        });
  try {
    const quoted = await Promise.all(
      offered.map(({ network, token }) => {
        const quoting = quoteTokenAmount(prices, {
          fiatCurrency: payment.fiat_currency,
          fiatDecimals,
          fiatAmount: BigInt(payment.fiat_value),
          token,
        }).then(
          (quote): AcceptedOption[] => [{ network, token, amount: quote.amount, expiresAt: quote.expiresAt }],
          (error: unknown): AcceptedOption[] => {
            if (error instanceof PriceUnavailableError) return [];
            throw error;
          },
        );
        if (!late) return quoting;
        // A quote that fails after the wait is over has nobody left to tell.
        quoting.catch(() => undefined);
        return Promise.race([quoting, late]);
      }),
    );
    return quoted.flat();
  } finally {
    clearTimeout(timer);
  }
}
