import { type Kysely, sql } from 'kysely';

/**
 * EIP-2612 permits accepted for payments, by their EIP-712 hash. A permit names no payment (the standard has no field
 * for one), so the first payment whose confirm is accepted with a signed permit holds it, and the same signature
 * pays no other payment.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE eip2612_permits (
      chain text NOT NULL,
      -- 0x-prefixed lowercase hex of the permit's EIP-712 hash.
      digest text NOT NULL,
      payment_id text NOT NULL REFERENCES payments (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (chain, digest)
    );
  `.execute(db);
}
