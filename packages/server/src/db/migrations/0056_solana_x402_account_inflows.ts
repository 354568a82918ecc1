import { type Kysely, sql } from 'kysely';

/**
 * A merchant's x402 token account on Solana is the collector's too (its owner is a key derived from the collector's
 * seed), so what anyone sends there outside an x402 payment is followed like a transfer into the collector.
 * `solana_x402_accounts` lists each such account with the merchant and mint it belongs to, as the service makes it
 * exist; `collector_inflows.to_account` is the merchant's account a Solana inflow reached (null: the collector's own);
 * a stray transfer judged unsolicited there is a deposit with no payment, swept like the others.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE solana_x402_accounts (
      network text NOT NULL,
      account text NOT NULL,
      merchant_id text NOT NULL,
      owner text NOT NULL,
      mint text NOT NULL,
      asset text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (network, account)
    );
    ALTER TABLE collector_inflows ADD COLUMN to_account text;
    ALTER TABLE solana_x402_deposits ALTER COLUMN payment_id DROP NOT NULL;
  `.execute(db);
}
