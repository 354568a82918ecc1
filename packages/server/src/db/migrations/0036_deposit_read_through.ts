import { type Kysely, sql } from 'kysely';

/**
 * An unpaid payment with a deposit address expires only once its network's deposit follower has read, at depth,
 * every block made before its expiry: a transfer in time may lie in a block not read yet when the follower is
 * behind. `read_through` is the time of a block read at depth, so every block made earlier is read (null until a
 * payment waited for it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE evm_deposit_cursors ADD COLUMN read_through timestamptz`.execute(db);
}
