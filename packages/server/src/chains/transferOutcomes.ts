import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

/** A transfer the chain layer followed to its end: landed at the network's depth, failed on chain, or given up. */
export interface FinalTransfer {
  /** CAIP-2 id of the network. */
  chain: string;
  /** What it was for: a relayer or journal purpose (`eip3009_receive`, `settlement`, ...) or a watch kind. */
  purpose: string;
  /** The payment or settlement batch it belongs to; null for a transfer of no one's. */
  reference: string | null;
  status: 'confirmed' | 'failed' | 'expired';
  /** The transaction hash (Solana: signature) that landed or was given up on. */
  hash: string | null;
  /** The sender's nonce of a transaction the service sent on an EVM network. */
  nonce: string | null;
  reason: string | null;
}

/**
 * What a final transfer means for the rest of the service, applied inside the transaction that records it as
 * final: both happen, or neither does, whichever process notices it.
 */
export type TransferOutcomeHandler = (trx: Transaction<Database>, transfer: FinalTransfer) => Promise<void>;
