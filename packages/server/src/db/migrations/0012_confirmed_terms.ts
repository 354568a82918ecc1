import { type Kysely, sql } from 'kysely';

/**
 * The option's terms as the accepted confirm checked them (for Solana, the exact message the buyer signed): the
 * submission uses these, never the option's current terms, which a later fetch may have rebuilt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE payment_confirmations ADD COLUMN terms jsonb;
    UPDATE payment_confirmations AS confirmation SET terms = option.terms FROM payment_options AS option WHERE option.id = confirmation.option_id;
    ALTER TABLE payment_confirmations ALTER COLUMN terms SET NOT NULL;
  `.execute(db);
}
