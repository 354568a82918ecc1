import type { ChainRegistry } from '../chains/registry.ts';

/**
 * What a buyer sent that did not simply pay the payment: less than asked (the payment waits for the rest until it
 * expires, then fails `underpaid`), more than asked (it succeeds; the excess is kept apart), after the payment
 * closed, a token the payment does not take, or a transfer to the collector whose confirm was refused (another
 * sender, another amount, no reference). Never silent: each is on the payment and has its webhook event.
 */
export const PAYMENT_EXCEPTION_TYPES = ['underpaid', 'overpaid', 'paid_late', 'wrong_token', 'refused'] as const;
export type PaymentExceptionType = (typeof PAYMENT_EXCEPTION_TYPES)[number];

/** One exception as the payment row keeps it (`payments.exceptions`). */
export interface PaymentException {
  /** Prefix `exc_`; an underpaid entry keeps its id while more arrives, and when it turns overpaid. */
  id: string;
  type: PaymentExceptionType;
  /** CAIP-2 id of the network. */
  network: string;
  /** CAIP-19 id of what was sent; a token no network lists has its `erc20:` id on that chain. */
  asset: string;
  /** Minor units: for `underpaid` everything received so far, for `overpaid` the excess, else the transfer's amount. */
  amount: string;
  /** For `underpaid`: what the payment asks for in that token. */
  expected?: string;
  /** The transfer (for `underpaid` the latest one). */
  txHash: string;
  /** CAIP-10 account that sent it. */
  from: string;
  /** When it was recorded, ISO 8601. */
  at: string;
  /** The refund that sends it back, once asked for. */
  refundId?: string;
  /** For `paid_late`: when the merchant accepted it as the payment, which then succeeded. ISO 8601. */
  acceptedAt?: string;
  /** How the buyer sent it (`Deposit address`, `Solana Pay`): the payment's wallet app if it fails underpaid. */
  provider?: string;
}

/**
 * Once a payment succeeds (by any method), what a token brought towards it without paying it is excess: its
 * underpaid entries become overpaid. Undefined when there is none.
 */
export function exceptionsOnSuccess(exceptions: readonly PaymentException[]): PaymentException[] | undefined {
  if (!exceptions.some((exception) => exception.type === 'underpaid')) return undefined;
  return exceptions.map((exception) => {
    if (exception.type !== 'underpaid') return exception;
    const { expected: _asked, ...rest } = exception;
    return { ...rest, type: 'overpaid' };
  });
}

/** Shown as the payment's wallet app when the buyer sent tokens to its deposit address from a wallet of its own. */
export const DEPOSIT_PROVIDER = 'Deposit address';

/** The buyer and token a transfer puts on the payment it pays: who sent it (CAIP-10), how, and what it counts for. */
export function paidByColumns(paid: {
  from: string;
  provider: string;
  asset: string;
  symbol: string | null;
  network: string;
  value: string;
}) {
  return {
    buyer_account: paid.from,
    buyer_provider_name: paid.provider,
    buyer_provider_icon: null,
    token_asset: paid.asset,
    token_symbol: paid.symbol,
    network: paid.network,
    token_value: paid.value,
  };
}

/**
 * The buyer and token an exception's transfers put on their payment when it is decided by them (failed `underpaid`,
 * or a late transfer accepted).
 */
export function paidByException(chains: ChainRegistry, exception: PaymentException) {
  return paidByColumns({
    ...exception,
    provider: exception.provider ?? DEPOSIT_PROVIDER,
    symbol: chains.token(exception.asset)?.symbol ?? null,
    value: exception.amount,
  });
}

/**
 * What transfers of less than asked brought towards a payment so far, as one string that changes whenever more
 * arrives in any token: each underpaid token (CAIP-19) and its total. Empty when nothing partial arrived.
 */
export function underpaidTotals(exceptions: readonly PaymentException[]): string {
  return exceptions
    .filter((exception) => exception.type === 'underpaid')
    .map((exception) => `${exception.asset}=${exception.amount}`)
    .sort()
    .join(',');
}
