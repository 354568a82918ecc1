import { type Kysely, sql } from 'kysely';

/**
 * While more deposit addresses are open than one `eth_getLogs` names, the follower reads the listed tokens' logs
 * at the head and the transfers of any token to the open addresses later, over many blocks at once: the next block
 * that later read starts at (null: it keeps up with `next_block`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE evm_deposit_cursors ADD COLUMN recipients_next_block bigint`.execute(db);
}
