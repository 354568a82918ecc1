import { type Kysely, sql } from 'kysely';

/**
 * At most one redelivery of an event to an endpoint waits at a time: asking again while one waits returns that one,
 * so a client repeating the request cannot multiply the outbound requests. Older duplicates are cancelled (the one
 * kept sends the same body).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE webhook_deliveries AS duplicate SET status = 'cancelled', completed_at = now()
      WHERE duplicate.redelivery AND duplicate.status = 'pending'
        AND EXISTS (
          SELECT 1 FROM webhook_deliveries AS kept
          WHERE kept.event_id = duplicate.event_id AND kept.endpoint_id = duplicate.endpoint_id
            AND kept.redelivery AND kept.status = 'pending' AND kept.id > duplicate.id
        );
    CREATE UNIQUE INDEX webhook_deliveries_waiting_redelivery_idx ON webhook_deliveries (event_id, endpoint_id)
      WHERE redelivery AND status = 'pending';
  `.execute(db);
}
