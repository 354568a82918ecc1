import { type Kysely, sql } from 'kysely';

/**
 * Every transfer into the collector on an EVM network, read at depth by the collector-inflow follower: once judged,
 * either one of the service's records holds it (a payment, a sweep, an x402 settle, funding, a refused transfer)
 * or it is unsolicited, entered in the ledger as owed to its sender (`unsolicited`) until the operator keeps it as
 * funding. The follower's read position per network is `collector_inflow_cursors`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE collector_inflows (
      id text PRIMARY KEY,
      chain text NOT NULL,
      tx_hash text NOT NULL,
      -- The ERC-20 log's index; the native coin's negative keys as the deposit follower numbers them.
      log_index integer NOT NULL,
      asset text NOT NULL,
      -- CAIP-10 account that sent it.
      sender text NOT NULL,
      amount numeric(78, 0) NOT NULL CHECK (amount > 0),
      block_number bigint NOT NULL,
      found_at timestamptz NOT NULL DEFAULT now(),
      -- null until judged: 'recorded' (a record of the service holds it) or 'unsolicited'.
      outcome text CHECK (outcome IN ('recorded', 'unsolicited')),
      judged_at timestamptz,
      -- When the operator kept an unsolicited inflow as its funding.
      kept_at timestamptz,
      UNIQUE (chain, tx_hash, log_index)
    );
    CREATE INDEX collector_inflows_unjudged ON collector_inflows (found_at) WHERE outcome IS NULL;
    CREATE TABLE collector_inflow_cursors (
      chain text PRIMARY KEY,
      next_block bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db);
}
