import type { ChainRegistry } from '../chains/registry.ts';

import { PAYMENT_EXCEPTION_TYPES, type PaymentException, type PaymentExceptionType } from '../db/schema.ts';

export { PAYMENT_EXCEPTION_TYPES };
export type { PaymentException, PaymentExceptionType };

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
