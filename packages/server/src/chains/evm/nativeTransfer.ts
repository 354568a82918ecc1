import {
  type Address,
  type Hex,
  isAddressEqual,
  keccak256,
  type PublicClient,
  stringToHex,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from 'viem';
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
 * The calldata of the transfer that pays an option: a plain account ignores it, and the chain keeps it. Option ids
 * are random, so no transfer can carry it before the option is offered, and each option's differs.
 */
export function nativeTransferReference(optionId: string): Hex {
  return keccak256(stringToHex(`paygate/native-transfer/${optionId}`));
}

/**
 * Gas of a coin transfer carrying the 32-byte reference: 21,000 plus its calldata at the EIP-7623 floor (10 gas
 * per token, a non-zero byte being 4 tokens), which is above the 16 gas per byte of older rules.
 */
export const NATIVE_TRANSFER_GAS = 21_000n + 32n * 4n * 10n;

/** What the transfer for an option must be. */
export interface ExpectedNativeTransfer {
  from: Address;
  to: Address;
  value: bigint;
  /** `nativeTransferReference` of the option: the transaction's calldata, exactly. */
  reference: Hex;
  /** When the option was offered: a transfer mined in an earlier block was made for something else. */
  offeredAt: Date;
}

/** Reads a block's timestamp (seconds) once per block hash: a wait checks the same mined transfer many times. */
export function blockTimestamps(client: PublicClient): (blockHash: Hex) => Promise<bigint> {
  const known = new Map<Hex, bigint>();
  return async (blockHash) => {
    const cached = known.get(blockHash);
    if (cached !== undefined) return cached;
    const { timestamp } = await client.getBlock({ blockHash });
    known.set(blockHash, timestamp);
    return timestamp;
  };
}

/**
 * Checks a buyer's native-coin transfer by its hash: sent by `from` straight to the collector, exactly `value`,
 * carrying the option's reference, succeeded in a block no older than the option, and mined `network.confirmations`
 * deep. A mismatch is refused at once; the caller must also claim the hash (`claimNativeTransfer`) so it pays one
 * payment only.
 */
export async function verifyNativeTransfer(
  client: PublicClient,
  network: NetworkInfo,
  txHash: Hex,
  expected: ExpectedNativeTransfer,
  timestampOf: (blockHash: Hex) => Promise<bigint> = blockTimestamps(client),
): Promise<NativeTransferState> {
  const [transaction, receipt, latestBlock] = await Promise.all([
    orNull(client.getTransaction({ hash: txHash })),
    orNull(client.getTransactionReceipt({ hash: txHash })),
    client.getBlockNumber({ cacheTime: 0 }),
  ]);
  if (!transaction) return { state: 'not_found' };
  if (!isAddressEqual(transaction.from, expected.from)) {
    throw new PaymentRefusedError(
      'payer_mismatch',
      `transaction ${txHash} was sent by ${transaction.from}, the payment expects ${expected.from}`,
    );
  }
  if (!transaction.to || !isAddressEqual(transaction.to, expected.to)) {
    throw new PaymentRefusedError(
      'recipient_mismatch',
      `transaction ${txHash} pays ${transaction.to ?? 'a contract creation'}, not the collector ${expected.to}`,
    );
  }
  if (transaction.value !== expected.value) {
    throw new PaymentRefusedError(
      'amount_mismatch',
      `transaction ${txHash} moves ${transaction.value} wei, the quote is ${expected.value}`,
    );
  }
  // Without it, a transfer made for another payment of the same amount, or another partner's, would pay this one.
  if (transaction.input.toLowerCase() !== expected.reference.toLowerCase()) {
    throw new PaymentRefusedError('reference_mismatch', `transaction ${txHash} was not made for this payment option`);
  }
  if (!receipt) return { state: 'pending', confirmations: 0 };
  if (receipt.status !== 'success')
    throw new PaymentRefusedError('transfer_reverted', `transaction ${txHash} reverted`);
  const minedAt = await timestampOf(receipt.blockHash);
  const offeredAt = BigInt(Math.floor(expected.offeredAt.getTime() / 1000));
  if (minedAt < offeredAt) {
    throw new PaymentRefusedError(
      'transfer_predates_option',
      `transaction ${txHash} was mined at ${minedAt}, before the option was offered at ${offeredAt}`,
    );
  }
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
