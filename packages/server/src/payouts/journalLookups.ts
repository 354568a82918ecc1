import type { Kysely, Selectable } from 'kysely';
import type { SolanaTransactionPurpose } from '../chains/solana/transactionSender.ts';
import type { Database, SolanaTransactionsTable } from '../db/schema.ts';

/** The EVM transfer of `purpose` for `reference` that may still land or has landed; `failed` when its only ones failed. */
export async function liveEvmTransfer(
  db: Kysely<Database>,
  purpose: string,
  reference: string,
): Promise<{ id: string; status: string; minedHash: string | null } | 'failed' | undefined> {
  const transfers = await db
    .selectFrom('evm_transactions')
    .select(['id', 'status', 'mined_hash'])
    .where('purpose', '=', purpose)
    .where('payment_id', '=', reference)
    .execute();
  const live = transfers.find((transfer) => transfer.status !== 'failed');
  if (live) return { id: live.id, status: live.status, minedHash: live.mined_hash };
  return transfers.length ? 'failed' : undefined;
}

/**
 * The Solana transfer of `purpose` for `reference` that may still land or has landed; `failed` when one failed on
 * chain. Transfers that expired unseen never landed and do not count: the payout gets a fresh one.
 */
export async function liveSolanaTransfer(
  db: Kysely<Database>,
  purpose: SolanaTransactionPurpose,
  reference: string,
): Promise<Selectable<SolanaTransactionsTable> | 'failed' | undefined> {
  const transfers = await db
    .selectFrom('solana_transactions')
    .selectAll()
    .where('purpose', '=', purpose)
    .where('reference', '=', reference)
    .orderBy('id')
    .execute();
  const live = transfers.find((transfer) => ['recorded', 'sent', 'confirmed'].includes(transfer.status));
  if (live) return live;
  return transfers.some((transfer) => transfer.status === 'failed') ? 'failed' : undefined;
}
