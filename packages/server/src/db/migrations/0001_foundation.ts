import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE partners (
      id text PRIMARY KEY,
      name text NOT NULL,
      pinned_version text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      partner_id text NOT NULL REFERENCES partners(id),
      display_prefix text NOT NULL,
      secret_hash text NOT NULL UNIQUE,
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    );
    CREATE TABLE apps (
      id text PRIMARY KEY,
      partner_id text NOT NULL REFERENCES partners(id),
      name text NOT NULL,
      icon_url text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE logos (
      file text PRIMARY KEY,
      content_type text NOT NULL,
      bytes bytea NOT NULL,
      width integer NOT NULL,
      height integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE merchants (
      id text PRIMARY KEY,
      partner_id text NOT NULL REFERENCES partners(id),
      name text NOT NULL,
      email text NOT NULL,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive', 'suspended')),
      logo_file text REFERENCES logos(file),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX merchants_partner_id_idx ON merchants (partner_id, id);
    CREATE TABLE crypto_settlements (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants(id),
      asset text NOT NULL,
      destination text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (merchant_id, asset)
    );
    CREATE TABLE fiat_settlements (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants(id),
      bank_type text NOT NULL,
      status text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX fiat_settlements_merchant_id_idx ON fiat_settlements (merchant_id);
    CREATE TABLE idempotency_keys (
      partner_id text NOT NULL REFERENCES partners(id),
      scope text NOT NULL,
      key text NOT NULL,
      request_hash text NOT NULL,
      response_status integer,
      response_body text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (partner_id, scope, key)
    );
    CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
    CREATE TABLE service_secrets (
      name text PRIMARY KEY,
      value text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db);
}
