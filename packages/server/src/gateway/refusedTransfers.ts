import type { FastifyBaseLogger } from 'fastify';
import type { Transaction } from 'kysely';
import type { Hex } from 'viem';
import { claimNativeTransfer, PaymentRefusedError } from '../chains/evm/index.ts';
import { watchTransaction } from '../chains/evm/watches.ts';
import type { FinalTransfer } from '../chains/transferOutcomes.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { lockPaymentForTransfer } from '../deposits/receivedTransfer.ts';
import { ApiError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { COLLECTOR, postTransferReceived } from '../ledger/ledger.ts';
import type { PaymentException } from '../payments/paymentExceptions.ts';
import { announcePayment, type TransitionContext } from '../payments/transitions.ts';
import type { WalletResult } from './methods/terms.ts';
import { paymentMethodOf } from '../paymentMethods/registry.ts';
import { offeredOption } from './optionLookup.ts';
import { chainServicesOf } from './gatewayPayment.ts';

/** The watch kind under which a refused transfer's transaction is followed until final. */
export const REFUSED_TRANSFER = 'refused_transfer';

/** How long a refused transfer not in a block yet is followed before it is given up as never mined. */
const REFUSED_TRANSFER_WATCH_MS = 60 * 60_000;

/**
 * A confirm was refused, but what its results name may have moved value into the collector all the same (a native
 * transfer from another sender than the option's, of another amount, with no reference, for a payment that could no
 * longer take it). Such a transfer is noted for the payment, once per transaction, and followed: once final it is
 * the payment's exception, held for its sender (`recordRefusedTransfer`). Only a refusal the buyer cannot undo by
 * asking again counts (4xx); reading the chain failing here changes nothing about the answer.
 */
export async function noteRefusedTransfer(
  ctx: AppContext,
  log: FastifyBaseLogger,
  paymentId: string,
  optionId: string,
  results: WalletResult[],
  error: unknown,
): Promise<void> {
  if (!(error instanceof ApiError) || error.status >= 500 || error.status === 429) return;
  try {
    const option = await offeredOption(ctx.db, paymentId, optionId);
    const refused = await paymentMethodOf(option.terms).refusedTransfer?.(
      chainServicesOf(ctx),
      ctx.chains,
      option,
      results,
    );
    if (!refused) return;
    await ctx.db.transaction().execute(async (trx) => {
      const noted = await trx
        .insertInto('refused_transfers')
        .values({
          chain: refused.chain,
          tx_hash: refused.hash.toLowerCase(),
          payment_id: paymentId,
          sender: refused.from,
          asset: refused.asset,
          amount: refused.amount,
          reason: String(error.details?.reason ?? error.code).slice(0, 100),
        })
        .onConflict((conflict) => conflict.columns(['chain', 'tx_hash']).doNothing())
        .returning('tx_hash')
        .executeTakeFirst();
      if (!noted) return;
      await watchTransaction(trx, {
        chain: refused.chain,
        txHash: refused.hash,
        // Apart from the payment's own watch of the same transaction, should a later confirm be accepted with it.
        paymentId: `refused:${paymentId}`,
        kind: REFUSED_TRANSFER,
        notBefore: refused.notBefore,
        deadline: new Date(ctx.clock.now().getTime() + REFUSED_TRANSFER_WATCH_MS),
      });
    });
  } catch (failure) {
    log.warn({ err: failure, paymentId }, 'a refused confirm’s transfer could not be noted');
  }
}

/**
 * A refused transfer's transaction is final: what it brought to the collector is the payment's `refused` exception,
 * owed to its sender (`buyers:<merchant>`) until the merchant sends it back. Nothing when it failed or was never
 * mined (no value moved), when it paid a payment after all, or when the operator recorded the same transaction as
 * funding (`paygate ledger fund --reference <hash>`).
 */
export async function recordRefusedTransfer(
  trx: Transaction<Database>,
  transition: TransitionContext,
  transfer: FinalTransfer,
): Promise<void> {
  if (transfer.status !== 'confirmed' || !transfer.hash) return;
  const refused = await trx
    .selectFrom('refused_transfers')
    .selectAll()
    .where('chain', '=', transfer.chain)
    .where('tx_hash', '=', transfer.hash.toLowerCase())
    .executeTakeFirst();
  if (!refused) return;
  const funding = await trx
    .selectFrom('ledger_entries')
    .select('id')
    .where('entry', 'ilike', `funding:${refused.tx_hash}`)
    .executeTakeFirst();
  if (funding) return;
  const payment = await lockPaymentForTransfer(trx, refused.payment_id);
  if (!payment) return;
  const exceptionId = newId('exc');
  // Claimed as the exception under the payment's lock, as a confirm claims a transfer: one that paid a payment
  // meanwhile (a confirm accepted once its merchant was active again) is not held twice, and none can pay after this.
  try {
    await claimNativeTransfer(trx, refused.chain, refused.tx_hash as Hex, `exception:${exceptionId}`);
  } catch (error) {
    if (error instanceof PaymentRefusedError) return;
    throw error;
  }
  const exception: PaymentException = {
    id: exceptionId,
    type: 'refused',
    network: refused.chain,
    asset: refused.asset,
    amount: refused.amount,
    txHash: refused.tx_hash,
    from: refused.sender,
    at: transition.now.toISOString(),
  };
  await postTransferReceived(trx, `refused:${refused.chain}:${refused.tx_hash}`, {
    heldBy: COLLECTOR,
    merchantId: payment.merchant_id,
    asset: refused.asset,
    amount: BigInt(refused.amount),
  });
  const written = await trx
    .updateTable('payments')
    .set({ exceptions: JSON.stringify([...payment.exceptions, exception]), updated_at: transition.now })
    .where('id', '=', refused.payment_id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await announcePayment(trx, transition, written, 'payment.transfer_refused');
}
