import { type Kysely, sql } from 'kysely';

/**
 * Where a payment the service makes for a merchant came from: a payment link's visit or a point-of-sale charge. Such
 * a payment keeps `source = 'api'`, a source every running release knows: 0.1.0, which serves beside this release in
 * a rolling upgrade, answers 500 for a payment whose source it does not know, and for every list page holding one.
 * The API shows `origin`, when set, as the payment's source. Once no release before this one runs, a later release
 * may copy it into `source` and stop writing it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE payments ADD COLUMN origin text CHECK (origin IN ('payment_link', 'point_of_sale'));
  `.execute(db);
}
