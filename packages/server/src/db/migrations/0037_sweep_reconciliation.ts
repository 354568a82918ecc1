import { type Kysely, sql } from 'kysely';

/**
 * A confirmed deposit sweep's receipt is compared once with the deposits recorded up to its block: what they do not
 * explain reached the collector with no record and is entered in the ledger as unattributed. `reconciled_at` says
 * when a sweep was compared; the partial index holds the sweeps still to compare, so finding them costs what is new.
 * Sweeps journaled before this migration are not read again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE evm_transactions ADD COLUMN reconciled_at timestamptz`.execute(db);
  await sql`UPDATE evm_transactions SET reconciled_at = now() WHERE purpose = 'deposit_sweep'`.execute(db);
  await sql`
    CREATE INDEX evm_transactions_sweeps_to_reconcile_idx ON evm_transactions (chain, receipt_block_number)
    WHERE purpose = 'deposit_sweep' AND status = 'confirmed' AND reconciled_at IS NULL`.execute(db);
}
