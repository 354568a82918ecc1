import type { Address, Hex } from 'viem';
import type { AccountId } from '../chains/caip.ts';
import { evmChainId, type ReceiveAuthorizationTypedData, receiveWithAuthorizationTypedData } from '../chains/evm/index.ts';
import { PriceUnavailableError, quoteTokenAmount, type TokenAmountQuote } from '../chains/prices/priceSource.ts';
import type { ChainRegistry, NetworkInfo, TokenInfo } from '../chains/registry.ts';
import { readSolanaBalances } from '../chains/solana/readSolanaBalances.ts';
import { receiveWithAuthorizationTypes } from '../chains/evm/eip3009.ts';
import type { Db } from '../db/database.ts';
import { newId } from '../ids.ts';
import { fiatCurrency } from '../payments/currencies.ts';
import type { PaymentRow } from '../payments/paymentResource.ts';
import { tokenAmountOf } from '../payments/paymentResource.ts';
import type { GatewayServices } from './services.ts';
import type { BuyerDataRequest, CollectData } from './dataCollection/buyerData.ts';
import { chainUnavailable, isChainRpcFailure } from './chainFailures.ts';
import { readEvmPayability } from './evmPayability.ts';
import { nativeOffer, type NativeTerms } from './nativePayments.ts';
import { permit2Offer, type Permit2Terms } from './permit2Payments.ts';
import { ApiError } from '../http/errors.ts';

/**
 * Whether the gateway offers a token: on EVM chains EIP-3009 and Permit2 tokens and the native coin when the network
 * lists it (D11), on Solana SPL tokens (D12).
 */
function isOffered(network: NetworkInfo, token: TokenInfo): boolean {
  return network.namespace === 'eip155' ? ['eip3009', 'permit2', 'native'].includes(token.method) : token.method === 'spl';
}

export type WalletRpcAction = { type: 'walletRpc'; data: { chain_id: string; method: string; params: string } };
export type BuildAction = { type: 'build'; data: { data: string } };
export type OptionAction = WalletRpcAction | BuildAction;

/** An EIP-3009 authorisation as stored: integers as decimal strings. */
export interface StoredAuthorization {
  domain: ReceiveAuthorizationTypedData['domain'];
  message: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
}

/** The Solana transfer last built for an option by the fetch operation. */
export interface StoredSolanaTransfer {
  transactionBase64: string;
  messageBytesBase64: string;
  lastValidBlockHeight: string;
}

/** What the buyer must sign for an option; a confirm is checked against exactly this. */
export type OptionTerms =
  | { kind: 'eip3009'; authorization: StoredAuthorization }
  | { kind: 'spl'; buyer: string; mint: string; decimals: number; transfer: StoredSolanaTransfer | null }
  | Permit2Terms
  | NativeTerms;

export interface OfferedOption {
  id: string;
  account: string;
  amount: ReturnType<typeof tokenAmountOf>;
  etaS: number;
  expiresAt: number | null;
  actions: OptionAction[];
  collectData: CollectData | null;
}

export function authorizationTypedData(stored: StoredAuthorization): ReceiveAuthorizationTypedData {
  const { message } = stored;
  return {
    domain: stored.domain,
    types: receiveWithAuthorizationTypes,
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: message.from,
      to: message.to,
      value: BigInt(message.value),
      validAfter: BigInt(message.validAfter),
      validBefore: BigInt(message.validBefore),
      nonce: message.nonce,
    },
  };
}

/** The `eth_signTypedData_v4` payload wallets expect: the domain type spelled out, integers as decimal strings. */
function signTypedDataParams(stored: StoredAuthorization): string {
  const typedData = {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      ...receiveWithAuthorizationTypes,
    },
    primaryType: 'ReceiveWithAuthorization',
    domain: stored.domain,
    message: stored.message,
  };
  return JSON.stringify([stored.message.from, JSON.stringify(typedData)]);
}

/** The build action's `data`: names the option, so a fetch can only build what was offered. */
export function solanaBuildData(optionId: string): string {
  return `solana-transfer:${optionId}`;
}

/** Seconds from submission until the chain's configured confirmation depth, rounded up. */
function etaSeconds(network: NetworkInfo): number {
  return Math.max(1, Math.ceil((network.blockTimeMs * Math.max(network.confirmations, 1)) / 1000));
}

interface Candidate {
  account: AccountId;
  token: TokenInfo;
  quote: TokenAmountQuote;
  /** A Permit2 option whose allowance is short starts with an approval. */
  needsApproval: boolean;
}

async function quotes(services: GatewayServices, payment: PaymentRow, tokens: TokenInfo[]): Promise<Map<string, TokenAmountQuote>> {
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

/** The (account, token) pairs of one network whose balances cover the quoted amount (and the buyer's gas). */
async function payableOnNetwork(
  services: GatewayServices,
  network: NetworkInfo,
  accounts: AccountId[],
  payment: PaymentRow,
): Promise<{ candidates: Candidate[]; unpriced: boolean }> {
  const tokens = network.tokens.filter((token) => isOffered(network, token));
  if (!tokens.length || !network.rpcUrl) return { candidates: [], unpriced: false };
  const quoted = await quotes(services, payment, tokens);
  const priced = tokens.filter((token) => quoted.has(token.caip19));
  // Nothing here could be priced: the price source failed or has no rate for the payment's currency.
  if (!priced.length) return { candidates: [], unpriced: true };
  const owners = [...new Set(accounts.map((account) => account.address))];
  let canPay: (owner: string, token: TokenInfo, amount: bigint) => boolean;
  let needsApproval: (owner: string, token: TokenInfo, amount: bigint) => boolean = () => false;
  if (network.namespace === 'eip155') {
    const payability = await readEvmPayability(services.evm.clients.for(network), owners, priced);
    canPay = payability.canPay;
    needsApproval = payability.needsApproval;
  } else {
    const solana = services.solana.networks.get(network.caip2);
    if (!solana) return { candidates: [], unpriced: false };
    const balances = await readSolanaBalances(solana.rpc, owners, priced.map((token) => token.address));
    canPay = (owner, token, amount) => (balances[owner]?.tokens[token.address] ?? 0n) >= amount;
  }
  const candidates = accounts.flatMap((account) =>
    priced.flatMap((token) => {
      const quote = quoted.get(token.caip19) as TokenAmountQuote;
      if (!canPay(account.address, token, quote.amount)) return [];
      return [{ account, token, quote, needsApproval: needsApproval(account.address, token, quote.amount) }];
    }),
  );
  return { candidates, unpriced: false };
}

async function termsAndActions(
  services: GatewayServices,
  network: NetworkInfo,
  candidate: Candidate,
  optionId: string,
  payment: PaymentRow,
): Promise<{ terms: OptionTerms; actions: OptionAction[] }> {
  const { account, token, quote } = candidate;
  if (token.method === 'permit2') {
    return permit2Offer({
      network,
      chainId: evmChainId(network),
      owner: account.address as Address,
      token: token.address as Address,
      amount: quote.amount,
      collector: services.evm.collector,
      paymentId: payment.id,
      // Valid until the payment expires, like an EIP-3009 authorisation.
      deadline: payment.expires_at,
      needsApproval: candidate.needsApproval,
    });
  }
  if (token.method === 'native') {
    return nativeOffer({ network, optionId, from: account.address as Address, collector: services.evm.collector, value: quote.amount });
  }
  if (token.method === 'eip3009') {
    const domain = await services.eip3009Token(services.evm.clients.for(network), token);
    // Valid until the payment expires: a later submission could pay an expired payment.
    const typedData = receiveWithAuthorizationTypedData({
      token: domain,
      from: account.address as Address,
      to: services.evm.collector,
      value: quote.amount,
      validAfter: 0n,
      validBefore: BigInt(Math.floor(payment.expires_at.getTime() / 1000)),
    });
    const { message } = typedData;
    const authorization: StoredAuthorization = {
      domain: typedData.domain,
      message: {
        ...message,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
      },
    };
    return {
      terms: { kind: 'eip3009', authorization },
      actions: [{ type: 'walletRpc', data: { chain_id: network.caip2, method: 'eth_signTypedData_v4', params: signTypedDataParams(authorization) } }],
    };
  }
  return {
    terms: { kind: 'spl', buyer: account.address, mint: token.address, decimals: token.decimals, transfer: null },
    actions: [{ type: 'build', data: { data: solanaBuildData(optionId) } }],
  };
}

/**
 * Quotes the payment in every offered token of every configured network of the given accounts, keeps the pairs the
 * account's balance covers, and stores each option with its terms so a confirm is checked against them.
 */
export async function offerOptions(
  db: Db,
  chains: ChainRegistry,
  services: GatewayServices,
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
      const { candidates, unpriced } = await payableOnNetwork(services, network, networkAccounts, payment);
      const options = await Promise.all(
        candidates.map(async (candidate) => {
          const id = newId('opt');
          const { terms, actions } = await termsAndActions(services, network, candidate, id, payment);
          return { id, network, candidate, terms, actions };
        }),
      );
      return { options, unpriced };
    }),
  );
  const failedNetworks = [...byNetwork.keys()].filter((_, index) => settled[index]?.status === 'rejected');
  const unexpected = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected' && !isChainRpcFailure(outcome.reason));
  if (unexpected) throw unexpected.reason;
  const perNetwork = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const built = perNetwork.flatMap((network) => network.options);
  // None left to offer because a node failed: `options: []` would wrongly tell the buyer it cannot pay.
  if (!built.length && failedNetworks.length) throw chainUnavailable(failedNetworks);
  if (!built.length && perNetwork.some((network) => network.unpriced)) {
    throw new ApiError(502, 'bad_gateway', `No exchange rate could be had for ${payment.fiat_currency}; try again shortly.`, {
      currency: payment.fiat_currency,
    });
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
