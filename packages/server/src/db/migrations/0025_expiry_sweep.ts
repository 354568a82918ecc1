import { type Kysely, sql } from 'kysely';

/** Unpaid payments by expiry, across merchants: the expiry sweep reads the due ones from here instead of a job each. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX payments_unpaid_expiry_idx ON payments (expires_at) WHERE status = 'requires_action'`.execute(
    db,
  );
}
