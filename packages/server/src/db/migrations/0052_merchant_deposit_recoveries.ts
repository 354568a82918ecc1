import { type Kysely, sql } from 'kysely';

/**
 * `paygate deposits recover` takes a merchant's own deposit address too (its x402 `payTo` on EVM networks): a request
 * names either a payment or a merchant, whose address the sweeper moves the token from.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE evm_deposit_recoveries
      ALTER COLUMN payment_id DROP NOT NULL,
      ADD COLUMN merchant_id text REFERENCES merchants (id),
      ADD CONSTRAINT evm_deposit_recoveries_one_owner CHECK ((payment_id IS NULL) <> (merchant_id IS NULL));
    CREATE UNIQUE INDEX evm_deposit_recoveries_one_open_of_merchant_idx
      ON evm_deposit_recoveries (merchant_id, chain, token) WHERE done_at IS NULL AND merchant_id IS NOT NULL;
  `.execute(db);
}
