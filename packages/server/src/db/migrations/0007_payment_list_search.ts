import { type Kysely, sql } from 'kysely';

/** Trigram index so the list's case-insensitive referenceId substring search does not scan every payment. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX payments_reference_id_trgm_idx ON payments USING gin (reference_id gin_trgm_ops);
  `.execute(db);
}
