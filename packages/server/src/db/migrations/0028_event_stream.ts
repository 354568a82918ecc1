import { type Kysely, sql } from 'kysely';

/** A partner's events by time: the event stream (`GET /v1/events/stream`) reads what was recorded since its last look. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_events_partner_created_idx ON webhook_events (partner_id, created_at)`.execute(db);
}
