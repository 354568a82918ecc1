import { type Kysely, sql } from 'kysely';

/**
 * A deposit seen in a block above its network's depth: when it brings what the payment asks, the payment becomes
 * `processing` at once (so it does not expire while the block deepens) and waits here for the transfer to reach
 * depth; a transfer the follower has not found at depth by the deadline, once it read past the transfer's block
 * there (a reorg took it away), fails the payment. The deposit cursor
 * also keeps how far the blocks above depth were read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE evm_deposit_waits (
      payment_id text PRIMARY KEY REFERENCES payments (id),
      chain text NOT NULL,
      -- CAIP-19 id of the token (or native coin) the seen transfer brought.
      asset text NOT NULL,
      tx_hash text NOT NULL,
      -- The block the transfer was seen in: the payment fails only once the reads at depth went past it.
      block_number bigint NOT NULL,
      deadline timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX evm_deposit_waits_deadline_idx ON evm_deposit_waits (deadline);

    -- The next block above depth to look at for deposits; null until first read.
    ALTER TABLE evm_deposit_cursors ADD COLUMN seen_next_block bigint;
  `.execute(db);
}
