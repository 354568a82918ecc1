import { type Kysely, sql } from 'kysely';

/**
 * A delivery keeps its place in line behind older deliveries of the same object (a payment, a refund, a merchant)
 * to its endpoint, not behind every older one: one event a receiver refuses then holds back only that object's later
 * events. `subject` is the object's id (a payment's `paymentId`); deliveries still pending take it from their event.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_deliveries ADD COLUMN subject text`.execute(db);
  await sql`
    UPDATE webhook_deliveries AS delivery
    SET subject = coalesce(event.body::json #>> '{data,object,id}', event.body::json #>> '{data,object,paymentId}')
    FROM webhook_events AS event
    WHERE event.id = delivery.event_id AND delivery.status = 'pending'`.execute(db);
  await sql`DROP INDEX webhook_deliveries_pending_idx`.execute(db);
  await sql`
    CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (endpoint_id, subject, id)
    WHERE status = 'pending'`.execute(db);
}
