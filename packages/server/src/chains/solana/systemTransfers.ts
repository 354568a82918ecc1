import { getBase58Encoder } from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { accountKeysOf, type FetchedSolanaTransaction } from './validateSolanaPayTransfer.ts';

/** The System program's `Transfer` instruction: a little-endian u32 index, then the lamports as a u64. */
const TRANSFER = 2;

/**
 * The lamports a transaction's top-level System `Transfer` instructions move out of `owner`'s account: what it paid
 * someone, as opposed to what the network took from it (its fee, rent).
 */
export function lamportsTransferredFrom(transaction: FetchedSolanaTransaction, owner: string): bigint {
  const keys = accountKeysOf(transaction);
  const base58 = getBase58Encoder();
  let sent = 0n;
  for (const instruction of transaction.transaction.message.instructions) {
    if (keys[instruction.programIdIndex] !== SYSTEM_PROGRAM_ADDRESS) continue;
    const data = new Uint8Array(base58.encode(instruction.data));
    if (data.length < 12) continue;
    const view = new DataView(data.buffer, data.byteOffset, data.length);
    if (view.getUint32(0, true) !== TRANSFER) continue;
    if (keys[instruction.accounts[0] ?? -1] !== owner) continue;
    sent += view.getBigUint64(4, true);
  }
  return sent;
}
