import type { SolanaPayTransferHandler } from '../chains/solana/solanaPayFollower.ts';
import { withSolanaPayTables } from '../chains/solana/solanaPayTables.ts';
import { judgeDeposit, receivedSoFar } from '../deposits/depositExceptions.ts';
import { applyReceivedTransfer, lockPaymentForTransfer } from '../deposits/receivedTransfer.ts';
import type { OutcomeContext, TransitionContext } from '../payments/transitions.ts';
import { COLLECTOR, postTransferReceived } from '../ledger/ledger.ts';

/** Shown as the payment's wallet app: the buyer paid a Solana Pay request from a wallet of its own choosing. */
export const SOLANA_PAY_PROVIDER = 'Solana Pay';

/**
 * What a transfer carrying a payment's reference does, in the transaction that records it: the payment row is
 * locked first, the transfer is recorded once by its signature (a transaction pays one payment at most), and
 * what reached the collector is judged as a deposit is (`judgeDeposit`): the amount asked in the requested token
 * pays an unpaid payment through the one state change, with the buyer, token, amount and signature on it; less
 * waits for the rest, more pays it with the excess kept apart, another listed token is the wrong token, and a payment
 * no longer payable (closed, or its merchant suspended) was paid late, each a payment exception the buyer can be
 * refunded. A transfer is in time when its
 * block was made before the expiry, however late it is read (the expiry sweep waits for this follower). A transfer to
 * another recipient, of a token the network does not list, or with no transfer is only recorded.
 */
export function solanaPayTransferOutcomes(context: OutcomeContext): SolanaPayTransferHandler {
  return async (trx, transfer) => {
    const payment = await lockPaymentForTransfer(trx, transfer.paymentId);
    if (!payment) return;
    const now = context.clock.now();
    const madeAt = transfer.blockTime ?? now;
    const payable =
      payment.merchantTakesPayments &&
      payment.status === 'requires_action' &&
      payment.expires_at.getTime() > madeAt.getTime();
    const outcome = transfer.senderBlocked
      ? 'held'
      : transfer.outcome === 'paid' && !payable
        ? 'payment_closed'
        : transfer.outcome;
    const recorded = await withSolanaPayTables(trx)
      .insertInto('solana_pay_transfers')
      .values({
        signature: transfer.signature,
        network: transfer.network,
        reference: transfer.reference,
        payment_id: transfer.paymentId,
        outcome,
        buyer: transfer.buyer,
        mint: transfer.mint,
        amount: transfer.amount,
        slot: transfer.slot,
      })
      .onConflict((conflict) => conflict.column('signature').doNothing())
      .returning('outcome')
      .executeTakeFirst();
    if (!recorded) return;
    // Only a listed token reaching the collector is money received; the rest never came to the service. A transfer
    // of nothing names the public reference at no cost, so it is no exception either.
    const asset = transfer.receivedAsset;
    if (asset === null || transfer.amount === null || transfer.amount <= 0n || !transfer.buyer) {
      context.log.warn(
        `Solana Pay transfer ${transfer.signature} for payment ${transfer.paymentId} did not pay it: ${outcome}`,
      );
      return;
    }
    await postTransferReceived(trx, `solana_pay:${transfer.signature}`, {
      heldBy: COLLECTOR,
      merchantId: payment.merchant_id,
      asset,
      amount: transfer.amount,
    });
    const expected = asset === transfer.asset ? transfer.requestedAmount : undefined;
    const judged = judgeDeposit({
      senderBlocked: transfer.senderBlocked === true,
      expected,
      payable,
      receivedBefore: receivedSoFar(payment.exceptions, transfer.network, asset),
      amount: transfer.amount,
    });
    if (judged.outcome !== 'paid') {
      context.log.warn(
        `Solana Pay transfer ${transfer.signature} of ${transfer.amount} for payment ${transfer.paymentId}: ${judged.outcome}`,
      );
    }
    const transition: TransitionContext = { db: trx, chains: context.chains, baseUrl: context.baseUrl(), now };
    await applyReceivedTransfer(
      trx,
      transition,
      payment.exceptions,
      {
        paymentId: transfer.paymentId,
        network: transfer.network,
        asset,
        symbol: context.chains.token(asset)?.symbol ?? null,
        amount: transfer.amount,
        expected,
        txHash: transfer.signature,
        // CAIP-10, as the gateway's options name accounts.
        from: `${transfer.network}:${transfer.buyer}`,
        provider: SOLANA_PAY_PROVIDER,
      },
      judged,
    );
  };
}
