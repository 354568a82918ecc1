import { type Kysely, sql } from 'kysely';

/**
 * An unpaid payment with a Solana Pay request expires only once its network's Solana Pay follower has read every
 * transaction made before its expiry, as one with a deposit address waits for the deposit follower (0036): a transfer
 * sent in time may not be read yet when the follower is behind a slow node. `read_through` is the time of a slot at
 * the follower's commitment that a whole pass read up to. `has_deposit_address` becomes `expiry_awaits_follower`,
 * set for either kind of payment, so the merchant's reads keep both unpaid until the expiry sweep decides.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE solana_pay_read_through (
      network text PRIMARY KEY,
      read_through timestamptz NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    ALTER TABLE payments RENAME COLUMN has_deposit_address TO expiry_awaits_follower;
    UPDATE payments SET expiry_awaits_follower = true
    WHERE status = 'requires_action' AND NOT expiry_awaits_follower
      AND EXISTS (SELECT 1 FROM solana_pay_requests request WHERE request.payment_id = payments.id);
  `.execute(db);
}
