import { type Kysely, sql } from 'kysely';

/**
 * A deleted merchant keeps its row, so its payments, settlements and events keep their merchant; `deleted_at` takes
 * it out of listings and new payments. Listings read live merchants only, so the partner's index covers just those.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE merchants ADD COLUMN deleted_at timestamptz;
    CREATE INDEX merchants_live_partner_idx ON merchants (partner_id, id) WHERE deleted_at IS NULL;
  `.execute(db);
}
