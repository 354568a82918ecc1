import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- The next nonce the relayer hands out per sending account; its row is locked while a transaction is recorded,
    -- so every process allocates from one counter without gaps or reuse.
    CREATE TABLE evm_nonces (
      chain text NOT NULL,
      address text NOT NULL,
      next_nonce bigint NOT NULL CHECK (next_nonce >= 0),
      PRIMARY KEY (chain, address)
    );
    -- One row per transaction the service means to land: a nonce of the sender, spent by exactly one of its attempts.
    CREATE TABLE evm_transactions (
      id text PRIMARY KEY,
      chain text NOT NULL,
      from_address text NOT NULL,
      nonce bigint NOT NULL,
      to_address text NOT NULL,
      data text NOT NULL,
      value numeric(78, 0) NOT NULL,
      gas bigint NOT NULL,
      purpose text NOT NULL,
      payment_id text,
      status text NOT NULL DEFAULT 'recorded' CHECK (status IN ('recorded', 'broadcast', 'confirmed', 'failed')),
      mined_hash text,
      receipt_block_number bigint,
      receipt_block_hash text,
      failure_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (chain, from_address, nonce)
    );
    CREATE INDEX evm_transactions_open_idx ON evm_transactions (chain, from_address, nonce) WHERE status IN ('recorded', 'broadcast');
    CREATE INDEX evm_transactions_payment_id_idx ON evm_transactions (payment_id) WHERE payment_id IS NOT NULL;
    -- Each signed version of a transaction (the first, then fee-bumped replacements with the same nonce), stored
    -- before it is sent so a restart can send the very same bytes again.
    CREATE TABLE evm_transaction_attempts (
      hash text PRIMARY KEY,
      transaction_id text NOT NULL REFERENCES evm_transactions(id),
      max_fee_per_gas numeric(78, 0) NOT NULL,
      max_priority_fee_per_gas numeric(78, 0) NOT NULL,
      raw_transaction text NOT NULL,
      status text NOT NULL DEFAULT 'recorded' CHECK (status IN ('recorded', 'broadcast', 'mined', 'replaced')),
      created_at timestamptz NOT NULL DEFAULT now(),
      broadcast_at timestamptz
    );
    CREATE INDEX evm_transaction_attempts_transaction_id_idx ON evm_transaction_attempts (transaction_id, created_at);
    -- Native-coin transfers already credited to a payment: a transaction hash pays one payment only.
    CREATE TABLE evm_used_transfers (
      chain text NOT NULL,
      tx_hash text NOT NULL,
      payment_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (chain, tx_hash)
    );
  `.execute(db);
}
