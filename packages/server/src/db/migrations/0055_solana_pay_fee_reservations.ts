import { type Kysely, sql } from 'kysely';

/**
 * A Solana Pay transaction the collector co-signs as fee payer reserves its most possible fee out of the operator's
 * funding when it is handed out, as the collector's own transactions do when journaled, instead of being counted
 * beside them: every other reservation and the operator's withdrawals then see it. `fee_open` marks one whose fee is
 * still reserved, until the network's Solana Pay follower enters what it cost (nothing, when it expired unsent).
 * Those co-signed before stay closed: nothing was reserved for them. The index of transactions that can still land,
 * which the count read, goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE solana_pay_cosigned_transactions ADD COLUMN fee_open boolean NOT NULL DEFAULT false;
    CREATE INDEX solana_pay_cosigned_transactions_fee_open_idx
      ON solana_pay_cosigned_transactions (network, last_valid_block_height) WHERE fee_open;
    DROP INDEX solana_pay_cosigned_transactions_landable_idx;
  `.execute(db);
}
