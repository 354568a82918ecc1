import type { FinalTransfer, TransferOutcomeHandler } from '../chains/transferOutcomes.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { withDepositTables } from '../deposits/depositTables.ts';
import { DEPOSIT_ADDRESSES, postTransferReceived } from '../ledger/ledger.ts';
import { X402_TRANSFER_PURPOSE } from './x402Eip3009Method.ts';

/**
 * The log index an x402 payment's deposit is recorded under: its transaction makes exactly one transfer to the
 * merchant's address, known from the relayer's journal rather than read from a log, so it takes an index above any a
 * block's logs reach (and apart from the native coin's, which are negative).
 */
export const X402_DEPOSIT_LOG_INDEX = 2 ** 31 - 1;

/**
 * What an x402 payment's transfer to its merchant's own address brought, recorded when the transfer is final and
 * before its payment succeeds, in the same transaction: a deposit at the merchant's address (`address_merchant_id`,
 * swept for the merchant with its other payments), held in `deposit_addresses` for the buyer until the payment takes
 * it, as a deposit address's transfer is; one that landed after its payment closed is recorded so too, and becomes the
 * payment's `paid_late` exception (`recordLateTransfer`). A transfer to the collector (before payments paid their
 * merchant's address, or on Solana) is the collector's at once.
 */
async function recordX402Deposit(
  trx: Parameters<TransferOutcomeHandler>[0],
  chains: ChainRegistry,
  transfer: FinalTransfer,
): Promise<void> {
  if (transfer.purpose !== X402_TRANSFER_PURPOSE || transfer.status !== 'confirmed') return;
  if (!transfer.reference || !transfer.hash) return;
  const paid = await trx
    .selectFrom('x402_payments as x402')
    .innerJoin('payments', 'payments.id', 'x402.payment_id')
    .innerJoin('evm_transactions as sent', 'sent.payment_id', 'x402.payment_id')
    .select([
      'x402.pay_to',
      'x402.payer',
      'payments.merchant_id',
      'payments.status',
      'payments.token_asset',
      'payments.token_value',
      'sent.receipt_block_number',
      'sent.receipt_block_hash',
    ])
    .where('x402.payment_id', '=', transfer.reference)
    .where('x402.pay_to', 'is not', null)
    .where('sent.purpose', '=', X402_TRANSFER_PURPOSE)
    .where('sent.mined_hash', '=', transfer.hash)
    .executeTakeFirst();
  const token = paid?.token_asset ? chains.token(paid.token_asset) : undefined;
  if (!paid?.pay_to || !token || !paid.token_value || !paid.receipt_block_number || !paid.receipt_block_hash) return;
  const deposit = {
    chain: transfer.chain,
    tx_hash: transfer.hash,
    log_index: X402_DEPOSIT_LOG_INDEX,
  };
  const recorded = await withDepositTables(trx)
    .insertInto('evm_deposits')
    .values({
      ...deposit,
      payment_id: transfer.reference,
      address: paid.pay_to,
      address_merchant_id: paid.merchant_id,
      token: token.address.toLowerCase(),
      asset: token.caip19,
      from_address: paid.payer,
      amount: paid.token_value,
      block_number: paid.receipt_block_number,
      block_hash: paid.receipt_block_hash,
      // Landed after its payment closed (the submission gave up first): the buyer's, held at the address.
      outcome: paid.status === 'processing' ? 'paid' : 'paid_late',
    })
    .onConflict((conflict) => conflict.columns(['chain', 'tx_hash', 'log_index']).doNothing())
    .returning('tx_hash')
    .executeTakeFirst();
  if (!recorded) return;
  await postTransferReceived(trx, `deposit:${deposit.chain}:${deposit.tx_hash}:${deposit.log_index}`, {
    heldBy: DEPOSIT_ADDRESSES,
    merchantId: paid.merchant_id,
    asset: token.caip19,
    amount: BigInt(paid.token_value),
  });
}

/** `outcomes`, after an x402 payment's transfer to its merchant's address is recorded as the deposit it is. */
export function withX402Deposits(chains: ChainRegistry, outcomes: TransferOutcomeHandler): TransferOutcomeHandler {
  return async (trx, transfer) => {
    await recordX402Deposit(trx, chains, transfer);
    await outcomes(trx, transfer);
  };
}
