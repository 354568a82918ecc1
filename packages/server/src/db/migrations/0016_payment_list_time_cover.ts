import { type Kysely, sql } from 'kysely';

/**
 * The date index of the payment list carries the columns its filters and customer count read, so a time window
 * combined with token, network or status filters is answered from the index alone instead of the table rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX payments_merchant_created_idx;
    CREATE INDEX payments_merchant_created_idx ON payments (merchant_id, created_at DESC, id DESC)
      INCLUDE (status, expires_at, token_symbol, network, buyer_account);
  `.execute(db);
}
