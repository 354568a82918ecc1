import type { ChainRegistry } from '../chains/registry.ts';
import type { SolanaPayTransferHandler } from '../chains/solana/solanaPayFollower.ts';
import { withSolanaPayTables } from '../chains/solana/solanaPayTables.ts';
import type { Logger } from '../log.ts';
import { changePaymentStatus, type TransitionContext } from '../payments/transitions.ts';

export interface SolanaPayOutcomeContext {
  chains: ChainRegistry;
  baseUrl: () => string;
  clock: { now(): Date };
  log: Logger;
}

/** Shown as the payment's wallet app: the buyer paid a Solana Pay request from a wallet of its own choosing. */
export const SOLANA_PAY_PROVIDER = 'Solana Pay';

/**
 * What a transfer carrying a payment's reference does, in the transaction that records it: the payment row is
 * locked first, the transfer is recorded once by its signature (a transaction pays one payment at most), and a
 * valid transfer to an unpaid payment makes it succeed through the one state change, with the buyer, token, amount
 * and signature on it. A wrong amount or mint, or a payment no longer payable, is recorded and changes nothing.
 */
export function solanaPayTransferOutcomes(context: SolanaPayOutcomeContext): SolanaPayTransferHandler {
  return async (trx, transfer) => {
    const payment = await trx
      .selectFrom('payments')
      .select(['status', 'expires_at'])
      .where('id', '=', transfer.paymentId)
      .forUpdate()
      .executeTakeFirst();
    if (!payment) return;
    const now = context.clock.now();
    const payable = payment.status === 'requires_action' && payment.expires_at.getTime() > now.getTime();
    const outcome = transfer.outcome === 'paid' && !payable ? 'payment_closed' : transfer.outcome;
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
    if (outcome !== 'paid') {
      context.log.warn(
        `Solana Pay transfer ${transfer.signature} for payment ${transfer.paymentId} did not pay it: ${outcome}`,
      );
      return;
    }
    const transition: TransitionContext = { db: trx, chains: context.chains, baseUrl: context.baseUrl(), now };
    await changePaymentStatus(transition, transfer.paymentId, 'processing', {
      // CAIP-10, as the gateway's options name accounts.
      buyer_account: transfer.buyer ? `${transfer.network}:${transfer.buyer}` : null,
      buyer_provider_name: SOLANA_PAY_PROVIDER,
      buyer_provider_icon: null,
      token_asset: transfer.asset,
      token_symbol: context.chains.token(transfer.asset)?.symbol ?? null,
      network: transfer.network,
      token_value: transfer.requestedAmount.toString(),
    });
    await changePaymentStatus(transition, transfer.paymentId, 'succeeded', { tx_hash: transfer.signature });
  };
}
