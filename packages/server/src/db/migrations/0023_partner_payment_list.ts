import { type Kysely, sql } from 'kysely';

/**
 * Indexes of the partner-wide payment list (`GET /v1/payments`), the partner's counterparts of the merchant list's:
 * pages in date and amount order, the filters and customer count from the date index alone, the status filter,
 * and the unpaid payments not yet past expiry. Its statistics read the per-merchant totals through the partner's
 * merchants, so they need no index of their own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX payments_partner_created_idx ON payments (partner_id, created_at DESC, id DESC)
      INCLUDE (status, expires_at, token_symbol, network, buyer_account);
    CREATE INDEX payments_partner_amount_idx ON payments (partner_id, fiat_value DESC, id DESC);
    CREATE INDEX payments_partner_status_created_buyer_idx ON payments (partner_id, status, created_at)
      INCLUDE (buyer_account);
    CREATE INDEX payments_partner_unpaid_expiry_idx ON payments (partner_id, expires_at)
      WHERE status = 'requires_action';
  `.execute(db);
}
