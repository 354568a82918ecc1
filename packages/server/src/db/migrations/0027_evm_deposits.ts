import { type Kysely, sql } from 'kysely';

/**
 * EVM deposit addresses: the amount a payment's deposit address expects in each token, fixed when the
 * checkout first shows it; every transfer found to a deposit address, whether it paid its payment or not; the
 * payment exceptions those transfers caused; and how far each network's follower has read the logs. Sweeps to the
 * collector are the relayer's own journaled transactions (purpose `deposit_sweep`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE evm_deposit_quotes (
      payment_id text NOT NULL REFERENCES payments (id),
      chain text NOT NULL,
      -- CAIP-19 id of the token.
      asset text NOT NULL,
      -- The payment's CREATE2 deposit address, lower case: the same on every network.
      address text NOT NULL,
      amount numeric(78, 0) NOT NULL CHECK (amount > 0),
      -- Transfers to the address are looked for until then (after the payment's expiry, to record late ones).
      watch_until timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (payment_id, chain, asset)
    );
    CREATE INDEX evm_deposit_quotes_watch_idx ON evm_deposit_quotes (chain, watch_until);
    CREATE INDEX evm_deposit_quotes_address_idx ON evm_deposit_quotes (address);

    CREATE TABLE evm_deposits (
      chain text NOT NULL,
      tx_hash text NOT NULL,
      log_index integer NOT NULL,
      payment_id text NOT NULL REFERENCES payments (id),
      address text NOT NULL,
      -- The token contract that emitted the Transfer, lower case.
      token text NOT NULL,
      -- Its CAIP-19 id when the network lists it.
      asset text,
      from_address text NOT NULL,
      amount numeric(78, 0) NOT NULL,
      block_number bigint NOT NULL,
      block_hash text NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('paid', 'underpaid', 'overpaid', 'wrong_token', 'paid_late')),
      -- The confirmed sweep that moved it to the collector.
      swept_by text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (chain, tx_hash, log_index)
    );
    CREATE INDEX evm_deposits_payment_idx ON evm_deposits (payment_id);
    CREATE INDEX evm_deposits_unswept_idx ON evm_deposits (chain) WHERE swept_by IS NULL AND asset IS NOT NULL;

    CREATE TABLE evm_deposit_cursors (
      chain text PRIMARY KEY,
      -- The next block whose logs are read; every block below it is read and at the network's depth.
      next_block bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    -- What the buyer sent that did not simply pay the payment (underpaid, overpaid, paid late, wrong token), as the
    -- API shows it: written with the deposit that caused it, under the payment's row lock.
    ALTER TABLE payments ADD COLUMN exceptions jsonb NOT NULL DEFAULT '[]';
  `.execute(db);
}
