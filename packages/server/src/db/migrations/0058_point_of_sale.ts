import { type Kysely, sql } from 'kysely';

/**
 * A merchant's point-of-sale devices (a shop's tablet or phone). The dashboard makes a device with a one-time pairing
 * token, short-lived and kept hashed; the device claims it once and gets its own key, also kept only hashed, which
 * can create that merchant's payments and read them, nothing else. Revoking the device ends the key. Each payment a
 * device charges is a `point_of_sale_charges` row with the amount before the tip, the tip and the cashier's note.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE point_of_sale_devices (
      id text PRIMARY KEY,
      partner_id text NOT NULL REFERENCES partners (id),
      merchant_id text NOT NULL REFERENCES merchants (id),
      name text NOT NULL,
      currency text NOT NULL,
      tip_percents integer[] NOT NULL,
      pairing_token_hash text UNIQUE,
      pairing_expires_at timestamptz NOT NULL,
      key_hash text UNIQUE,
      key_prefix text,
      paired_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      -- Claimed: the pairing token is gone and the key is there, together.
      CHECK ((paired_at IS NULL) = (key_hash IS NULL) AND (paired_at IS NULL) = (pairing_token_hash IS NOT NULL))
    );
    CREATE INDEX point_of_sale_devices_partner_idx ON point_of_sale_devices (partner_id, id);
    CREATE TABLE point_of_sale_charges (
      payment_id text PRIMARY KEY REFERENCES payments (id),
      device_id text NOT NULL REFERENCES point_of_sale_devices (id),
      base_value bigint NOT NULL CHECK (base_value > 0),
      tip_value bigint NOT NULL CHECK (tip_value >= 0),
      note text,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX point_of_sale_charges_device_idx ON point_of_sale_charges (device_id, created_at);
  `.execute(db);
}
