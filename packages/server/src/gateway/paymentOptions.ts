import type { AccountId } from '../chains/caip.ts';
import { PriceUnavailableError, quoteTokenAmount, type TokenAmountQuote } from '../chains/prices/priceSource.ts';
import type { ChainRegistry, NetworkInfo, TokenInfo } from '../chains/registry.ts';
import type { Db } from '../db/database.ts';
import { newId } from '../ids.ts';
import { fiatCurrency } from '../payments/currencies.ts';
import type { PaymentRow } from '../payments/paymentResource.ts';
import { tokenAmountOf } from '../payments/paymentResource.ts';
import { chainAdapterOf, type ChainServices } from './chainServices.ts';
import type { BuyerDataRequest, CollectData } from './dataCollection/buyerData.ts';
import { chainUnavailable, isChainRpcFailure } from './chainFailures.ts';
import { paymentMethodFor } from '../paymentMethods/registry.ts';
import type { Candidate, PaymentMethodHandler } from './methods/paymentMethod.ts';
import { ApiError } from '../http/errors.ts';
import type { OptionAction, OptionTerms } from './methods/terms.ts';

export interface OfferedOption {
  id: string;
  account: string;
  amount: ReturnType<typeof tokenAmountOf>;
  etaS: number;
  expiresAt: number | null;
  actions: OptionAction[];
  collectData: CollectData | null;
}

/** Seconds from submission until the chain's configured confirmation depth, rounded up. */
function etaSeconds(network: NetworkInfo): number {
  return Math.max(1, Math.ceil((network.blockTimeMs * Math.max(network.confirmations, 1)) / 1000));
}

async function quotes(
  services: ChainServices,
  payment: PaymentRow,
  tokens: TokenInfo[],
): Promise<Map<string, TokenAmountQuote>> {
  const currency = fiatCurrency(payment.fiat_currency);
  const quoted = new Map<string, TokenAmountQuote>();
  await Promise.all(
    tokens.map(async (token) => {
      try {
        quoted.set(
          token.caip19,
          await quoteTokenAmount(services.prices, {
            fiatCurrency: payment.fiat_currency,
            fiatDecimals: currency?.decimals ?? 2,
            fiatAmount: BigInt(payment.fiat_value),
            token,
          }),
        );
      } catch (error) {
        // A token without a price now is simply not offered.
        if (!(error instanceof PriceUnavailableError)) throw error;
      }
    }),
  );
  return quoted;
}

/** An option about to be made: the (account, token) pair and the method that offers it. */
interface Offerable {
  method: PaymentMethodHandler<OptionTerms>;
  candidate: Candidate;
}

/** The (account, token) pairs of one network whose balances cover the quoted amount (and the buyer's gas). */
async function payableOnNetwork(
  services: ChainServices,
  network: NetworkInfo,
  accounts: AccountId[],
  payment: PaymentRow,
): Promise<{ offerable: Offerable[]; unpriced: boolean }> {
  const offered = network.tokens.flatMap((token) => {
    const method = paymentMethodFor(network, token);
    return method ? [{ token, method }] : [];
  });
  if (!offered.length || !network.rpcUrl) return { offerable: [], unpriced: false };
  const quoted = await quotes(
    services,
    payment,
    offered.map(({ token }) => token),
  );
  const priced = offered.filter(({ token }) => quoted.has(token.caip19));
  // Nothing here could be priced: the price source failed or has no rate for the payment's currency.
  if (!priced.length) return { offerable: [], unpriced: true };
  const owners = [...new Set(accounts.map((account) => account.address))];
  const payability = await chainAdapterOf(services, network.namespace).payability(
    network,
    owners,
    priced.map(({ token }) => token),
  );
  if (!payability) return { offerable: [], unpriced: false };
  const offerable = accounts.flatMap((account) =>
    priced.flatMap(({ token, method }) => {
      const quote = quoted.get(token.caip19) as TokenAmountQuote;
      if (!payability.canPay(account.address, token, quote.amount)) return [];
      return [
        {
          method,
          candidate: {
            account,
            token,
            quote,
            needsApproval: payability.needsApproval(account.address, token, quote.amount),
          },
        },
      ];
    }),
  );
  return { offerable, unpriced: false };
}

/**
 * Quotes the payment in every offered token of every configured network of the given accounts, keeps the pairs the
 * account's balance covers, and stores each option with its terms so a confirm is checked against them.
 */
export async function offerOptions(
  db: Db,
  chains: ChainRegistry,
  services: ChainServices,
  payment: PaymentRow,
  accounts: AccountId[],
  buyerData: BuyerDataRequest | null = null,
): Promise<OfferedOption[]> {
  const byNetwork = new Map<string, AccountId[]>();
  for (const account of accounts) byNetwork.set(account.caip2, [...(byNetwork.get(account.caip2) ?? []), account]);
  // One network's node failing hides only that network's options.
  const settled = await Promise.allSettled(
    [...byNetwork].map(async ([caip2, networkAccounts]) => {
      const network = chains.network(caip2) as NetworkInfo;
      const { offerable, unpriced } = await payableOnNetwork(services, network, networkAccounts, payment);
      const options = await Promise.all(
        offerable.map(async ({ method, candidate }) => {
          const id = newId('opt');
          const { terms, actions } = await method.offer(services, network, candidate, id, payment);
          return { id, network, candidate, terms, actions };
        }),
      );
      return { options, unpriced };
    }),
  );
  const failedNetworks = [...byNetwork.keys()].filter((_, index) => settled[index]?.status === 'rejected');
  const unexpected = settled.find(
    (outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected' && !isChainRpcFailure(outcome.reason),
  );
  if (unexpected) throw unexpected.reason;
  const perNetwork = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const built = perNetwork.flatMap((network) => network.options);
  // None left to offer because a node failed: `options: []` would wrongly tell the buyer it cannot pay.
  if (!built.length && failedNetworks.length) throw chainUnavailable(failedNetworks);
  if (!built.length && perNetwork.some((network) => network.unpriced)) {
    throw new ApiError(
      'bad_gateway',
      `No exchange rate could be had for ${payment.fiat_currency}; try again shortly.`,
      {
        currency: payment.fiat_currency,
      },
    );
  }
  if (built.length) {
    await db
      .insertInto('payment_options')
      .values(
        built.map(({ id, network, candidate, terms, actions }) => ({
          id,
          payment_id: payment.id,
          account: candidate.account.caip10,
          asset: candidate.token.caip19,
          network: network.caip2,
          method: candidate.token.method,
          amount: candidate.quote.amount,
          quote_expires_at: candidate.quote.expiresAt,
          actions: JSON.stringify(actions),
          terms: JSON.stringify(terms),
          requires_buyer_data: buyerData !== null,
        })),
      )
      .execute();
  }
  return built.map(({ id, network, candidate, actions }) => ({
    id,
    account: candidate.account.caip10,
    amount: tokenAmountOf(chains, candidate.token.caip19, candidate.quote.amount.toString()),
    etaS: etaSeconds(network),
    expiresAt: candidate.quote.expiresAt ? Math.floor(candidate.quote.expiresAt.getTime() / 1000) : null,
    actions,
    collectData: buyerData?.forAccount(candidate.account.caip10) ?? null,
  }));
}
