import { type Kysely, sql } from 'kysely';

/**
 * Solana Pay (issue 17): a transfer request per payment and token, named on chain by a fresh reference key; the
 * transfers found carrying a reference, whether they paid their payment or not (a wrong amount or mint is kept for
 * the payment exceptions); and how far the network's follower has read each collector token account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE solana_pay_requests (
      reference text PRIMARY KEY,
      payment_id text NOT NULL REFERENCES payments (id),
      network text NOT NULL,
      asset text NOT NULL,
      mint text NOT NULL,
      decimals integer NOT NULL,
      -- The owner of the token account credited: the service's Solana collector.
      recipient text NOT NULL,
      amount numeric(39, 0) NOT NULL CHECK (amount > 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (payment_id, asset)
    );
    CREATE INDEX solana_pay_requests_network_idx ON solana_pay_requests (network, payment_id);

    CREATE TABLE solana_pay_transfers (
      -- A transaction pays at most one payment.
      signature text PRIMARY KEY,
      network text NOT NULL,
      reference text NOT NULL REFERENCES solana_pay_requests (reference),
      payment_id text NOT NULL REFERENCES payments (id),
      outcome text NOT NULL CHECK (outcome IN ('paid', 'wrong_amount', 'wrong_mint', 'wrong_recipient', 'no_transfer', 'payment_closed')),
      -- What the transaction did: the signing owner of the source account, the mint and amount that reached the collector.
      buyer text,
      mint text,
      amount numeric(39, 0),
      slot bigint NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX solana_pay_transfers_payment_idx ON solana_pay_transfers (payment_id);

    CREATE TABLE solana_pay_cursors (
      network text NOT NULL,
      -- A collector token account whose signatures the follower reads, newest last read here.
      account text NOT NULL,
      last_signature text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (network, account)
    );
  `.execute(db);
}
