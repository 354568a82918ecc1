import { type Kysely, sql } from 'kysely';

/**
 * Tokens a network does not list, sent to a deposit address, stay there until the operator asks for them
 * (`paygate deposits recover`): a request names the payment, network and token contract; the network's sweeper
 * journals one factory sweep of that token to the collector and marks the deposits it took.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE evm_deposit_recoveries (
      id text PRIMARY KEY,
      payment_id text NOT NULL REFERENCES payments (id),
      chain text NOT NULL,
      -- The token contract, lower case.
      token text NOT NULL,
      requested_at timestamptz NOT NULL DEFAULT now(),
      -- The journaled sweep (evm_transactions.id), once recorded.
      sweep_id text,
      -- When its sweep was confirmed or failed.
      done_at timestamptz
    );
    CREATE INDEX evm_deposit_recoveries_open_idx ON evm_deposit_recoveries (chain) WHERE done_at IS NULL;
    CREATE UNIQUE INDEX evm_deposit_recoveries_one_open_idx ON evm_deposit_recoveries (payment_id, chain, token)
      WHERE done_at IS NULL;
  `.execute(db);
}
