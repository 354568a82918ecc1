import { type Kysely, sql } from 'kysely';

/**
 * Wallet apps the service itself owns, by purpose (`checkout`: the buyer checkout page pays and polls through the
 * gateway with this App-Id). The partner and app rows are made when the service first needs them, not here, so a
 * fresh database still counts as having no partners.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE service_apps (
      purpose text PRIMARY KEY,
      app_id text NOT NULL UNIQUE REFERENCES apps(id),
      created_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db);
}
