import { getAddress } from 'viem';
import { type DepositHandler, NATIVE_TOKEN } from '../chains/evm/deposits/depositScanner.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Logger } from '../log.ts';
import { DEPOSIT_PROVIDER } from '../payments/paymentExceptions.ts';
import type { TransitionContext } from '../payments/transitions.ts';
import { judgeDeposit, receivedSoFar } from './depositExceptions.ts';
import { applyReceivedTransfer, lockPaymentForTransfer } from './receivedTransfer.ts';
import { withDepositTables } from './depositTables.ts';

export interface DepositOutcomeContext {
  chains: ChainRegistry;
  baseUrl: () => string;
  clock: { now(): Date };
  log: Logger;
}

/**
 * What a transfer to a payment's deposit address does, in the transaction that records it, under the payment's row
 * lock: the transfer is recorded once by its log and judged (`judgeDeposit`). When what the buyer sent in the token
 * reaches the amount fixed for the payment while it is payable, the payment succeeds through the one state change
 * with the buyer, token, amount asked and the completing transaction on it. Anything else (less so far, more, late,
 * another token) changes the payment's exceptions and is announced with its own event.
 */
export function evmDepositOutcomes(context: DepositOutcomeContext): DepositHandler {
  return async (trx, transfer) => {
    const tables = withDepositTables(trx);
    const payment = await lockPaymentForTransfer(trx, transfer.paymentId);
    if (!payment) return;
    const token = context.chains
      .network(transfer.chain)
      ?.tokens.find((candidate) =>
        transfer.token === NATIVE_TOKEN
          ? candidate.method === 'native'
          : candidate.address.toLowerCase() === transfer.token,
      );
    const asset = token?.caip19 ?? `${transfer.chain}/erc20:${transfer.token}`;
    const quote = await tables
      .selectFrom('evm_deposit_quotes')
      .select('amount')
      .where('payment_id', '=', transfer.paymentId)
      .where('chain', '=', transfer.chain)
      .where('asset', '=', asset)
      .executeTakeFirst();
    const now = context.clock.now();
    const expected = quote ? BigInt(quote.amount) : undefined;
    const judged = judgeDeposit({
      expected,
      payable: payment.status === 'requires_action' && payment.expires_at.getTime() > now.getTime(),
      receivedBefore: receivedSoFar(payment.exceptions, transfer.chain, asset),
      amount: transfer.amount,
    });
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
        outcome: judged.outcome,
      })
      .onConflict((conflict) => conflict.columns(['chain', 'tx_hash', 'log_index']).doNothing())
      .returning('outcome')
      .executeTakeFirst();
    if (!recorded) return;
    // Any contract can log a Transfer to a public address: a token the network does not list is kept for the
    // operator and changes nothing else, so nobody can flood a merchant's exceptions and webhooks for the price of
    // a log.
    if (!token) {
      context.log.warn(
        `deposit ${transfer.txHash} to payment ${transfer.paymentId} is of ${transfer.token}, a token ${transfer.chain} does not list`,
      );
      return;
    }
    if (judged.outcome !== 'paid') {
      context.log.warn(
        `deposit ${transfer.txHash} of ${transfer.amount} ${token.symbol} for payment ${transfer.paymentId}: ${judged.outcome}`,
      );
    }
    const transition: TransitionContext = { db: trx, chains: context.chains, baseUrl: context.baseUrl(), now };
    await applyReceivedTransfer(
      trx,
      transition,
      payment.exceptions,
      {
        paymentId: transfer.paymentId,
        network: transfer.chain,
        asset,
        symbol: token.symbol,
        amount: transfer.amount,
        expected,
        txHash: transfer.txHash,
        from: `${transfer.chain}:${getAddress(transfer.from)}`,
        provider: DEPOSIT_PROVIDER,
      },
      judged,
    );
  };
}
