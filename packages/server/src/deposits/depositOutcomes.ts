import { getAddress } from 'viem';
import type { Transaction } from 'kysely';
import type { DepositHandler } from '../chains/evm/deposits/depositScanner.ts';
import { type DepositTransfer, NATIVE_TOKEN } from '../chains/evm/deposits/nativeTransfers.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { DEPOSIT_PROVIDER } from '../payments/paymentExceptions.ts';
import type { Database } from '../db/schema.ts';
import { changePaymentStatus, type OutcomeContext, type TransitionContext } from '../payments/transitions.ts';
import { judgeDeposit, receivedSoFar } from './depositExceptions.ts';
import {
  applyReceivedTransfer,
  lockPaymentForTransfer,
  paidByTransfer,
  type ReceivedTransfer,
} from './receivedTransfer.ts';
import { withDepositTables } from './depositTables.ts';
import { DEPOSIT_ADDRESSES, postTransferReceived } from '../ledger/ledger.ts';

/** The token (or native coin) a deposit brought, when the network lists it, and its CAIP-19 id either way. */
function depositAssetOf(chains: ChainRegistry, transfer: DepositTransfer) {
  const token = chains
    .network(transfer.chain)
    ?.tokens.find((candidate) =>
      transfer.token === NATIVE_TOKEN
        ? candidate.method === 'native'
        : candidate.address.toLowerCase() === transfer.token,
    );
  return { token, asset: token?.caip19 ?? `${transfer.chain}/erc20:${transfer.token}` };
}

/** What the payment's deposit address asks for in `asset`; undefined when the payment does not take it. */
async function quotedAmount(trx: Transaction<Database>, transfer: DepositTransfer, asset: string) {
  const quote = await withDepositTables(trx)
    .selectFrom('evm_deposit_quotes')
    .select('amount')
    .where('payment_id', '=', transfer.paymentId)
    .where('chain', '=', transfer.chain)
    .where('asset', '=', asset)
    .executeTakeFirst();
  return quote ? BigInt(quote.amount) : undefined;
}

function receivedTransferOf(
  transfer: DepositTransfer,
  asset: string,
  symbol: string,
  expected: bigint | undefined,
): ReceivedTransfer {
  return {
    paymentId: transfer.paymentId,
    network: transfer.chain,
    asset,
    symbol,
    amount: transfer.amount,
    expected,
    txHash: transfer.txHash,
    from: `${transfer.chain}:${getAddress(transfer.from)}`,
    provider: DEPOSIT_PROVIDER,
  };
}

/**
 * What a transfer to a payment's deposit address does, in the transaction that records it, under the payment's row
 * lock: the transfer is recorded once by its log and judged (`judgeDeposit`). When what the buyer sent in the token
 * reaches the amount fixed for the payment while it is payable, the payment succeeds through the one state change
 * with the buyer, token, amount asked and the completing transaction on it. A payment is payable while unpaid and
 * unexpired when the transfer's block was made (the follower may read it later; the expiry sweep waits for it), and
 * while it waits for a transfer of that token seen above depth (`evmDepositSeen`), and only while its merchant takes
 * payments. Anything else (less so far, more, late or while the merchant is suspended, another token) changes the
 * payment's exceptions and is announced with its own event.
 */
export function evmDepositOutcomes(context: OutcomeContext): DepositHandler {
  return async (trx, transfer) => {
    const tables = withDepositTables(trx);
    const payment = await lockPaymentForTransfer(trx, transfer.paymentId);
    if (!payment) return;
    const { token, asset } = depositAssetOf(context.chains, transfer);
    const expected = token ? await quotedAmount(trx, transfer, asset) : undefined;
    const waiting =
      payment.status === 'processing'
        ? await tables
            .selectFrom('evm_deposit_waits')
            .select(['chain', 'asset'])
            .where('payment_id', '=', transfer.paymentId)
            .executeTakeFirst()
        : undefined;
    const now = context.clock.now();
    const judged = judgeDeposit({
      senderBlocked: transfer.senderBlocked === true,
      expected,
      // A merchant an operator suspended (or that was deleted) collects nothing: what arrives meanwhile is held for
      // its sender as an exception, even for a payment that was on its way.
      payable:
        payment.merchantTakesPayments &&
        ((payment.status === 'requires_action' && payment.expires_at.getTime() > transfer.blockTime.getTime()) ||
          (waiting?.chain === transfer.chain && waiting.asset === asset)),
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
    await postTransferReceived(trx, `deposit:${transfer.chain}:${transfer.txHash}:${transfer.logIndex}`, {
      heldBy: DEPOSIT_ADDRESSES,
      merchantId: payment.merchant_id,
      asset,
      amount: transfer.amount,
    });
    const transition: TransitionContext = { db: trx, chains: context.chains, baseUrl: context.baseUrl(), now };
    await applyReceivedTransfer(
      trx,
      transition,
      payment.exceptions,
      receivedTransferOf(transfer, asset, token.symbol, expected),
      judged,
    );
    if (waiting && (judged.outcome === 'paid' || judged.outcome === 'overpaid'))
      await tables.deleteFrom('evm_deposit_waits').where('payment_id', '=', transfer.paymentId).execute();
  };
}

/**
 * A transfer seen in a block above its network's depth (Ethereum's 12 blocks take minutes): when, with what earlier
 * transfers of the token brought, it pays a payment unpaid and unexpired when the block was made, the payment
 * becomes `processing` with its buyer and token, so the buyer's page says the payment is on its way and the payment
 * does not expire while the block deepens. It succeeds when a transfer of that token reaches depth
 * (`evmDepositOutcomes`); if none does by the deadline (a reorg took it away for good), it fails
 * (`failUnconfirmedDeposits`). Handed the same transfer twice, it changes nothing the second time.
 */
export function evmDepositSeen(context: OutcomeContext & { waitMs: number }): DepositHandler {
  return async (trx, transfer) => {
    // A blocked sender's transfer pays nothing: it is held once at depth (`evmDepositOutcomes`).
    if (transfer.senderBlocked) return;
    const payment = await lockPaymentForTransfer(trx, transfer.paymentId);
    const now = context.clock.now();
    if (
      payment?.status !== 'requires_action' ||
      !payment.merchantTakesPayments ||
      payment.expires_at.getTime() <= transfer.blockTime.getTime()
    )
      return;
    const { token, asset } = depositAssetOf(context.chains, transfer);
    if (!token) return;
    const expected = await quotedAmount(trx, transfer, asset);
    if (expected === undefined) return;
    if (receivedSoFar(payment.exceptions, transfer.chain, asset) + transfer.amount < expected) return;
    await withDepositTables(trx)
      .insertInto('evm_deposit_waits')
      .values({
        payment_id: transfer.paymentId,
        chain: transfer.chain,
        asset,
        tx_hash: transfer.txHash,
        block_number: transfer.blockNumber,
        deadline: new Date(now.getTime() + context.waitMs),
      })
      .execute();
    const transition: TransitionContext = { db: trx, chains: context.chains, baseUrl: context.baseUrl(), now };
    await changePaymentStatus(
      transition,
      transfer.paymentId,
      'processing',
      paidByTransfer(receivedTransferOf(transfer, asset, token.symbol, expected)),
    );
  };
}
