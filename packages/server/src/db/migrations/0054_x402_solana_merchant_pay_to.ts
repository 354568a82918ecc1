import { type Kysely, sql } from 'kysely';

/**
 * x402 payments on Solana pay their merchant's own token account, not the collector's: the associated token account
 * of the mint owned by a key derived from the collector's seed and the merchant's id, so the buyer's transfer names
 * the merchant. The collector creates that account before a buyer pays it (journal purpose `x402_pay_to_account`)
 * and sweeps it into its own (`x402_sweep`). `solana_x402_deposits` is what each x402 payment's transfer brought there,
 * held in the ledger's `deposit_addresses` until the sweep that took it (`sweep_id`) is confirmed;
 * `solana_x402_sweeps` is one sweep of one token account, at most one open at a time, of exactly its deposits.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE solana_transactions DROP CONSTRAINT solana_transactions_purpose_check;
    ALTER TABLE solana_transactions ADD CONSTRAINT solana_transactions_purpose_check
      CHECK (purpose IN ('payment', 'settlement', 'refund', 'inflow_return', 'x402_pay_to_account', 'x402_sweep'));
    CREATE TABLE solana_x402_sweeps (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      network text NOT NULL,
      merchant_id text NOT NULL,
      owner text NOT NULL,
      mint text NOT NULL,
      asset text NOT NULL,
      amount numeric NOT NULL CHECK (amount > 0),
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'swept', 'given_up')),
      signature text,
      created_at timestamptz NOT NULL DEFAULT now(),
      swept_at timestamptz
    );
    CREATE UNIQUE INDEX solana_x402_sweeps_one_open ON solana_x402_sweeps (network, owner, mint) WHERE status = 'open';
    CREATE TABLE solana_x402_deposits (
      network text NOT NULL,
      signature text NOT NULL,
      payment_id text NOT NULL,
      merchant_id text NOT NULL,
      owner text NOT NULL,
      mint text NOT NULL,
      asset text NOT NULL,
      amount numeric NOT NULL CHECK (amount > 0),
      sweep_id bigint REFERENCES solana_x402_sweeps (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (network, signature)
    );
    CREATE INDEX solana_x402_deposits_unswept ON solana_x402_deposits (network) WHERE sweep_id IS NULL;
    CREATE INDEX solana_x402_deposits_sweep ON solana_x402_deposits (sweep_id) WHERE sweep_id IS NOT NULL;
  `.execute(db);
}
