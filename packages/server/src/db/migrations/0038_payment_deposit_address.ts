import { type Kysely, sql } from 'kysely';

/**
 * Whether a payment has a deposit address (its checkout page fixed a deposit quote): such a payment expires only once
 * its network's deposit follower has read every block made before its expiry, so reads that partners act on keep it
 * unpaid until the expiry sweep decides, instead of calling it expired and then seeing it succeed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE payments ADD COLUMN has_deposit_address boolean NOT NULL DEFAULT false`.execute(db);
  await sql`
    UPDATE payments SET has_deposit_address = true
    WHERE status = 'requires_action' AND EXISTS (SELECT 1 FROM evm_deposit_quotes quote WHERE quote.payment_id = payments.id)
  `.execute(db);
}
