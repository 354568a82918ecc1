import { type Kysely, sql } from 'kysely';

/**
 * A payment's page shows its timeline: the events about it (its own and its refunds') with their deliveries. Each
 * event names the payment it is about, read by this index, instead of every event of the partner being searched.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_events ADD COLUMN payment_id text`.execute(db);
  await sql`UPDATE webhook_events SET payment_id = body::json #>> '{data,object,paymentId}'`.execute(db);
  await sql`
    CREATE INDEX webhook_events_payment_idx ON webhook_events (payment_id, created_at, id) WHERE payment_id IS NOT NULL
  `.execute(db);
}
