import { type Kysely, sql } from 'kysely';

/**
 * The transactions the collector signed as fee payer in answer to Solana Pay transaction requests. Each can land,
 * and cost the collector its fee even when it fails, until its network's block height passes its blockhash's last
 * valid one; the service hands out only so many that can still land per payment and per paying account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE solana_pay_cosigned_transactions (
      -- The collector's signature, the transaction's id.
      signature text PRIMARY KEY,
      network text NOT NULL,
      reference text NOT NULL REFERENCES solana_pay_requests (reference),
      payment_id text NOT NULL REFERENCES payments (id),
      -- The account the transaction is built for: the owner of the token account it pays from.
      account text NOT NULL,
      last_valid_block_height bigint NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX solana_pay_cosigned_transactions_payment_idx
      ON solana_pay_cosigned_transactions (network, payment_id, last_valid_block_height);
    CREATE INDEX solana_pay_cosigned_transactions_account_idx
      ON solana_pay_cosigned_transactions (network, account, last_valid_block_height);
  `.execute(db);
}
