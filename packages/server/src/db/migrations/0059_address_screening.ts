import { type Kysely, sql } from 'kysely';

/**
 * Address screening (off unless SCREENING is set). `screening_lists` keeps every list the operator loaded, under a
 * version that is the hash of its addresses; the entries of the newest alone are kept, as `<namespace>:<address>`
 * (EVM addresses lower-case, chain-agnostic: one key holds them on every EVM network). `screening_decisions` records
 * each account screened: where in a payment's life, what the list or the provider answered and under which version.
 * A deposit or Solana Pay transfer from a blocked sender is recorded with the outcome `held` (looser checks).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE screening_lists (
      version text PRIMARY KEY,
      source text NOT NULL,
      entries integer NOT NULL CHECK (entries >= 0),
      loaded_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX screening_lists_loaded_idx ON screening_lists (loaded_at DESC);
    CREATE TABLE screening_list_entries (
      version text NOT NULL REFERENCES screening_lists (version),
      address text NOT NULL,
      PRIMARY KEY (version, address)
    );
    CREATE TABLE screening_decisions (
      id bigserial PRIMARY KEY,
      account text NOT NULL,
      step text NOT NULL,
      payment_id text,
      merchant_id text,
      blocked boolean NOT NULL,
      provider text NOT NULL,
      list_version text,
      reason text,
      decided_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX screening_decisions_blocked_idx ON screening_decisions (decided_at DESC) WHERE blocked;
    CREATE INDEX screening_decisions_payment_idx ON screening_decisions (payment_id) WHERE payment_id IS NOT NULL;
    ALTER TABLE evm_deposits DROP CONSTRAINT evm_deposits_outcome_check;
    ALTER TABLE evm_deposits ADD CONSTRAINT evm_deposits_outcome_check
      CHECK (outcome IN ('paid', 'underpaid', 'overpaid', 'wrong_token', 'paid_late', 'held'));
    ALTER TABLE solana_pay_transfers DROP CONSTRAINT solana_pay_transfers_outcome_check;
    ALTER TABLE solana_pay_transfers ADD CONSTRAINT solana_pay_transfers_outcome_check
      CHECK (outcome IN ('paid', 'wrong_amount', 'wrong_mint', 'wrong_recipient', 'no_transfer', 'payment_closed', 'held'));
  `.execute(db);
}
