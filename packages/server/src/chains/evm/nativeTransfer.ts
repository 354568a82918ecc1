import { type Address, type Hex, isAddressEqual, type PublicClient, TransactionNotFoundError, TransactionReceiptNotFoundError } from 'viem';
import type { Db } from '../../db/database.ts';
import type { NetworkInfo } from '../registry.ts';
import { PaymentRefusedError } from './errors.ts';

export type NativeTransferState =
  /** The node does not know the hash (yet): the wallet may have sent it elsewhere; ask again later. */
  | { state: 'not_found' }
  /** The transfer matches the payment but is not mined at the required depth yet. */
  | { state: 'pending'; confirmations: number }
  | { state: 'confirmed'; confirmations: number; blockNumber: bigint; blockHash: Hex };

async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof TransactionNotFoundError || error instanceof TransactionReceiptNotFoundError) return null;
    throw error;
  }
}

/**
 * Checks a buyer's native-coin transfer by its hash: sent by `from` straight to the collector, exactly `value`,
 * succeeded, and mined `network.confirmations` deep. A mismatch is refused at once; the caller must also claim
 * the hash (`claimNativeTransfer`) so it pays one payment only.
 */
export async function verifyNativeTransfer(
  client: PublicClient,
  network: NetworkInfo,
  txHash: Hex,
  expected: { from: Address; to: Address; value: bigint },
): Promise<NativeTransferState> {
  const [transaction, receipt, latestBlock] = await Promise.all([
    orNull(client.getTransaction({ hash: txHash })),
    orNull(client.getTransactionReceipt({ hash: txHash })),
    client.getBlockNumber({ cacheTime: 0 }),
  ]);
  if (!transaction) return { state: 'not_found' };
  if (!isAddressEqual(transaction.from, expected.from)) {
    throw new PaymentRefusedError('payer_mismatch', `transaction ${txHash} was sent by ${transaction.from}, the payment expects ${expected.from}`);
  }
  if (!transaction.to || !isAddressEqual(transaction.to, expected.to)) {
    throw new PaymentRefusedError('recipient_mismatch', `transaction ${txHash} pays ${transaction.to ?? 'a contract creation'}, not the collector ${expected.to}`);
  }
  if (transaction.value !== expected.value) {
    throw new PaymentRefusedError('amount_mismatch', `transaction ${txHash} moves ${transaction.value} wei, the quote is ${expected.value}`);
  }
  if (!receipt) return { state: 'pending', confirmations: 0 };
  if (receipt.status !== 'success') throw new PaymentRefusedError('transfer_reverted', `transaction ${txHash} reverted`);
  const confirmations = Number(latestBlock - receipt.blockNumber + 1n);
  if (confirmations < Math.max(network.confirmations, 1)) return { state: 'pending', confirmations };
  return { state: 'confirmed', confirmations, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
}

/**
 * Binds a native transfer to a payment, once: claiming it again for the same payment is a no-op, for another
 * payment a refusal. Pass a transaction to make the claim part of the payment's state change.
 */
export async function claimNativeTransfer(db: Db, chain: string, txHash: Hex, paymentId: string): Promise<void> {
  const hash = txHash.toLowerCase();
  await db
    .insertInto('evm_used_transfers')
    .values({ chain, tx_hash: hash, payment_id: paymentId })
    .onConflict((conflict) => conflict.columns(['chain', 'tx_hash']).doNothing())
    .execute();
  const claim = await db
    .selectFrom('evm_used_transfers')
    .select('payment_id')
    .where('chain', '=', chain)
    .where('tx_hash', '=', hash)
    .executeTakeFirstOrThrow();
  if (claim.payment_id !== paymentId) {
    throw new PaymentRefusedError('transfer_already_used', `transaction ${txHash} already paid another payment`);
  }
}
