import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY,
      partner_id text NOT NULL REFERENCES partners(id),
      merchant_id text REFERENCES merchants(id),
      url text NOT NULL,
      events text[] NOT NULL,
      secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    );
    CREATE INDEX webhook_endpoints_partner_id_idx ON webhook_endpoints (partner_id) WHERE deleted_at IS NULL;
    CREATE TABLE webhook_events (
      id text PRIMARY KEY,
      partner_id text NOT NULL REFERENCES partners(id),
      merchant_id text,
      type text NOT NULL,
      body text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE webhook_deliveries (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      event_id text NOT NULL REFERENCES webhook_events(id),
      endpoint_id text NOT NULL REFERENCES webhook_endpoints(id),
      redelivery boolean NOT NULL DEFAULT false,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
      attempts integer NOT NULL DEFAULT 0,
      first_attempt_at timestamptz,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    );
    CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (endpoint_id, id) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_event_id_idx ON webhook_deliveries (event_id);
    CREATE TABLE webhook_attempts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      delivery_id bigint NOT NULL REFERENCES webhook_deliveries(id),
      endpoint_id text NOT NULL REFERENCES webhook_endpoints(id),
      event_id text NOT NULL REFERENCES webhook_events(id),
      attempt integer NOT NULL,
      status_code integer,
      error text,
      duration_ms integer NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('succeeded', 'will_retry', 'given_up')),
      attempted_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_attempts_endpoint_id_idx ON webhook_attempts (endpoint_id, id);
  `.execute(db);
}
