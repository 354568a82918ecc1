import { getAddress } from 'viem';
import type { DepositHandler } from '../chains/evm/deposits/depositScanner.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Logger } from '../log.ts';
import { changePaymentStatus, type TransitionContext } from '../payments/transitions.ts';
import { type EvmDepositOutcome, withDepositTables } from './depositTables.ts';

export interface DepositOutcomeContext {
  chains: ChainRegistry;
  baseUrl: () => string;
  clock: { now(): Date };
  log: Logger;
}

/** Shown as the payment's wallet app: the buyer sent the tokens to the deposit address from a wallet of its own. */
export const DEPOSIT_PROVIDER = 'Deposit address';

/**
 * What a transfer to a payment's deposit address does, in the transaction that records it: the payment row is
 * locked first, the transfer is recorded once by its log, and a transfer of exactly the amount fixed for the
 * payment in that token, while the payment is payable, makes it succeed through the one state change with the
 * buyer, token, amount and transaction on it. Any other transfer (less, more, a token without a quote, a payment no
 * longer payable) is recorded for the payment exceptions and leaves the payment as it is.
 */
export function evmDepositOutcomes(context: DepositOutcomeContext): DepositHandler {
  return async (trx, transfer) => {
    const tables = withDepositTables(trx);
    const payment = await trx
      .selectFrom('payments')
      .select(['status', 'expires_at'])
      .where('id', '=', transfer.paymentId)
      .forUpdate()
      .executeTakeFirst();
    if (!payment) return;
    const token = context.chains
      .network(transfer.chain)
      ?.tokens.find((candidate) => candidate.address.toLowerCase() === transfer.token);
    const quote = token
      ? await tables
          .selectFrom('evm_deposit_quotes')
          .select('amount')
          .where('payment_id', '=', transfer.paymentId)
          .where('chain', '=', transfer.chain)
          .where('asset', '=', token.caip19)
          .executeTakeFirst()
      : undefined;
    const now = context.clock.now();
    const payable = payment.status === 'requires_action' && payment.expires_at.getTime() > now.getTime();
    const expected = quote ? BigInt(quote.amount) : undefined;
    const outcome: EvmDepositOutcome =
      expected === undefined
        ? 'wrong_token'
        : !payable
          ? 'payment_closed'
          : transfer.amount < expected
            ? 'underpaid'
            : transfer.amount > expected
              ? 'overpaid'
              : 'paid';
    const recorded = await tables
      .insertInto('evm_deposits')
      .values({
        chain: transfer.chain,
        tx_hash: transfer.txHash,
        log_index: transfer.logIndex,
        payment_id: transfer.paymentId,
        address: transfer.address,
        token: transfer.token,
        asset: token?.caip19 ?? null,
        from_address: transfer.from,
        amount: transfer.amount,
        block_number: transfer.blockNumber,
        block_hash: transfer.blockHash,
        outcome,
      })
      .onConflict((conflict) => conflict.columns(['chain', 'tx_hash', 'log_index']).doNothing())
      .returning('outcome')
      .executeTakeFirst();
    if (!recorded) return;
    if (outcome !== 'paid' || !token) {
      context.log.warn(
        `deposit ${transfer.txHash} of ${transfer.amount} ${token?.symbol ?? transfer.token} for payment ${transfer.paymentId} did not pay it: ${outcome}`,
      );
      return;
    }
    const transition: TransitionContext = { db: trx, chains: context.chains, baseUrl: context.baseUrl(), now };
    await changePaymentStatus(transition, transfer.paymentId, 'processing', {
      // CAIP-10, as every payment method records its buyer.
      buyer_account: `${transfer.chain}:${getAddress(transfer.from)}`,
      buyer_provider_name: DEPOSIT_PROVIDER,
      buyer_provider_icon: null,
      token_asset: token.caip19,
      token_symbol: token.symbol,
      network: transfer.chain,
      token_value: transfer.amount.toString(),
    });
    await changePaymentStatus(transition, transfer.paymentId, 'succeeded', { tx_hash: transfer.txHash });
  };
}
