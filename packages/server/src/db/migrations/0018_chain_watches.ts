import { type Kysely, sql } from 'kysely';

/**
 * Transactions a buyer sent itself that a payment waits on (the native transfer that pays it, the approval of
 * Permit2 before its permit): the follower of the network finds them in the blocks it reads, takes them to the
 * network's depth, and gives up on them at their deadline. That a native transfer pays one payment only is kept by
 * \`evm_used_transfers\`; one approval may serve several payments of its buyer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE chain_watches (
      chain text NOT NULL,
      tx_hash text NOT NULL,
      payment_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('native_payment', 'permit2_approval')),
      -- A block older than this cannot hold the transaction: it was made for an option offered at this time.
      not_before timestamptz NOT NULL,
      deadline timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirmed', 'failed', 'expired')),
      block_number bigint,
      block_hash text,
      failure_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (chain, tx_hash, payment_id)
    );
    CREATE INDEX chain_watches_open_idx ON chain_watches (chain) WHERE status = 'pending';
  `.execute(db);
}
