import { sql } from 'kysely';
import type { ChainRegistry } from '../chains/registry.ts';
import { withX402SvmTables, X402_SWEEP_PURPOSE } from '../chains/solana/x402MerchantAccounts.ts';
import type { FinalTransfer, TransferOutcomeHandler } from '../chains/transferOutcomes.ts';
import { COLLECTOR, DEPOSIT_ADDRESSES, postLedgerEntry } from '../ledger/ledger.ts';

/** The Solana journal's purpose of the transfer that pays a payment, an x402 one among them. */
const PAYMENT_PURPOSE = 'payment';

type Trx = Parameters<TransferOutcomeHandler>[0];

/**
 * What an x402 payment's transfer to its merchant's own token account on Solana brought, recorded when the transfer
 * is final, in the same transaction: a deposit there, held in the ledger's `deposit_addresses` until a sweep moves it
 * to the collector. The payment's own entry (`postPaymentReceived`) counts what a Solana transfer paid as the
 * collector's, as it is for a transfer to the collector; this entry says the collector does not hold it yet, so the
 * merchant and the buyers are owed exactly as for any payment, whether it succeeds with the transfer or the
 * transfer lands late. A payment recorded before payments paid their merchant's token account (no `pay_to`) paid
 * the collector.
 */
async function recordDeposit(trx: Trx, chains: ChainRegistry, transfer: FinalTransfer): Promise<void> {
  if (!transfer.reference || !transfer.hash) return;
  const paid = await trx
    .selectFrom('x402_payments as x402')
    .innerJoin('payments', 'payments.id', 'x402.payment_id')
    .select(['x402.pay_to', 'payments.merchant_id', 'payments.token_asset', 'payments.token_value'])
    .where('x402.payment_id', '=', transfer.reference)
    .where('x402.pay_to', 'is not', null)
    .executeTakeFirst();
  const token = paid?.token_asset ? chains.token(paid.token_asset) : undefined;
  if (!paid?.pay_to || !token || token.chain !== transfer.chain || !paid.token_value) return;
  const recorded = await withX402SvmTables(trx)
    .insertInto('solana_x402_deposits')
    .values({
      network: transfer.chain,
      signature: transfer.hash,
      payment_id: transfer.reference,
      merchant_id: paid.merchant_id,
      owner: paid.pay_to,
      mint: token.address,
      asset: token.caip19,
      amount: paid.token_value,
    })
    .onConflict((conflict) => conflict.columns(['network', 'signature']).doNothing())
    .returning('signature')
    .executeTakeFirst();
  if (!recorded) return;
  const amount = BigInt(paid.token_value);
  await postLedgerEntry(trx, `x402_svm_deposit:${transfer.chain}:${transfer.hash}`, [
    { account: DEPOSIT_ADDRESSES, asset: token.caip19, amount },
    { account: COLLECTOR, asset: token.caip19, amount: -amount },
  ]);
}

/** A sweep of a merchant's token account is confirmed: each deposit it took is the collector's now. */
async function recordSweep(trx: Trx, transfer: FinalTransfer): Promise<void> {
  if (!transfer.reference || !transfer.hash) return;
  const tables = withX402SvmTables(trx);
  const swept = await tables
    .updateTable('solana_x402_sweeps')
    .set({ status: 'swept', signature: transfer.hash, swept_at: sql<Date>`now()` })
    .where('id', '=', transfer.reference)
    .where('status', '=', 'open')
    .returning('id')
    .executeTakeFirst();
  if (!swept) return;
  const deposits = await tables
    .selectFrom('solana_x402_deposits')
    .select(['network', 'signature', 'asset', 'amount'])
    .where('sweep_id', '=', swept.id)
    .execute();
  for (const deposit of deposits) {
    const amount = BigInt(deposit.amount);
    await postLedgerEntry(trx, `x402_svm_swept:${deposit.network}:${deposit.signature}`, [
      { account: COLLECTOR, asset: deposit.asset, amount },
      { account: DEPOSIT_ADDRESSES, asset: deposit.asset, amount: -amount },
    ]);
  }
}

/**
 * `outcomes`, after an x402 payment's transfer to its merchant's token account on Solana is recorded as the deposit it
 * is, and a confirmed sweep of such an account moves its deposits to the collector.
 */
export function withX402SvmDeposits(chains: ChainRegistry, outcomes: TransferOutcomeHandler): TransferOutcomeHandler {
  return async (trx, transfer) => {
    if (transfer.status === 'confirmed' && chains.network(transfer.chain)?.namespace === 'solana') {
      if (transfer.purpose === PAYMENT_PURPOSE) await recordDeposit(trx, chains, transfer);
      else if (transfer.purpose === X402_SWEEP_PURPOSE) await recordSweep(trx, transfer);
    }
    await outcomes(trx, transfer);
  };
}
