import { type Kysely, sql } from 'kysely';

/**
 * Transactions the collector signed on a Solana network that no journal of the service holds, which the operator
 * accepted as sent (`paygate collector accept-unjournaled`): a restore to an older point, or the key used by hand.
 * Until accepted, one of them stops the service's transactions from the collector on that network, which looks for
 * them from the newest journaled transaction that landed: the index finds it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE collector_accepted_transactions (
      signature text PRIMARY KEY,
      network text NOT NULL,
      accepted_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX solana_transactions_landed_idx ON solana_transactions (network, slot DESC) WHERE slot IS NOT NULL;
  `.execute(db);
}
