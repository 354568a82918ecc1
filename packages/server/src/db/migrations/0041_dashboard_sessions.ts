import { type Kysely, sql } from 'kysely';

/**
 * Sign-in to the web consoles: a session per sign-in, named by a random secret in an HttpOnly cookie of which only
 * the hash is kept. A partner's session (the dashboard) acts for one partner with the scopes of the API key it
 * signed in with (a one-time link gives every scope); an operator's session (the operator console) has no partner.
 * The one-time links `paygate dashboard-link` and `paygate operator-link` print are kept hashed too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE dashboard_sessions (
      id text PRIMARY KEY,
      token_hash text NOT NULL UNIQUE,
      audience text NOT NULL CHECK (audience IN ('partner', 'operator')),
      partner_id text REFERENCES partners (id),
      -- The key signed in with: revoking it ends what the session may do. Null for a one-time link.
      key_id text REFERENCES api_keys (id),
      scopes text[] NOT NULL,
      -- Sent back in X-CSRF-Token with every change; useless without the cookie.
      csrf_token text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      ended_at timestamptz,
      CHECK ((audience = 'partner') = (partner_id IS NOT NULL))
    );
    CREATE INDEX dashboard_sessions_partner_idx ON dashboard_sessions (partner_id);
    CREATE TABLE dashboard_links (
      token_hash text PRIMARY KEY,
      audience text NOT NULL CHECK (audience IN ('partner', 'operator')),
      partner_id text REFERENCES partners (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      CHECK ((audience = 'partner') = (partner_id IS NOT NULL))
    );
  `.execute(db);
}
