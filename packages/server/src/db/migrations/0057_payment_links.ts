import { type Kysely, sql } from 'kysely';

/**
 * Payment links: a merchant's page that makes a new payment per visit, at a fixed price (times a quantity the buyer
 * may choose) or at a price the buyer chooses within bounds. Each payment names the link it came from. `source`
 * gains `payment_link` and `point_of_sale`, for payments the service makes for a merchant without a partner's call.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE payment_links (
      id text PRIMARY KEY,
      partner_id text NOT NULL REFERENCES partners (id),
      merchant_id text NOT NULL REFERENCES merchants (id),
      currency text NOT NULL,
      amount bigint,
      minimum_amount bigint,
      maximum_amount bigint,
      preset_amount bigint,
      description text NOT NULL,
      image_url text,
      max_quantity integer,
      active boolean NOT NULL DEFAULT true,
      max_uses integer,
      expires_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT payment_links_one_price CHECK ((amount IS NULL) <> (minimum_amount IS NULL AND maximum_amount IS NULL))
    );
    CREATE INDEX payment_links_merchant_created_idx ON payment_links (merchant_id, created_at DESC, id DESC);
    ALTER TABLE payments ADD COLUMN payment_link_id text REFERENCES payment_links (id);
    CREATE INDEX payments_payment_link_idx ON payments (payment_link_id, created_at DESC, id DESC)
      WHERE payment_link_id IS NOT NULL;
    ALTER TABLE payments DROP CONSTRAINT payments_source_check;
    ALTER TABLE payments ADD CONSTRAINT payments_source_check
      CHECK (source IN ('api', 'x402', 'payment_link', 'point_of_sale')) NOT VALID;
  `.execute(db);
}
