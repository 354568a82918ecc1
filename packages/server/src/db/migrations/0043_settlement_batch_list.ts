import { type Kysely, sql } from 'kysely';

/**
 * `GET /v1/settlements` lists a partner's batches newest first a page at a time, by merchant: each merchant's batches
 * are read in that order from this index instead of sorting every batch the service ever made.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX settlement_batches_merchant_list_idx ON settlement_batches (merchant_id, created_at DESC, id DESC);
  `.execute(db);
}
