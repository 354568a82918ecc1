import { type Kysely, sql } from 'kysely';

/**
 * Network fees are the operator's cost from now on (`ledger.ts`): what the collector paid networks before, entered
 * as `network_fees` against the collector alone, is taken from the operator's funding of each native coin once, so
 * the operator's account holds what it really has left for gas. An operator that recorded less funding than the
 * fees paid so far shows below zero in `paygate audit` until it records its top-ups, and no new transaction is
 * journaled on that network meanwhile. The index finds a network's Solana Pay transactions that can still land,
 * whose fees a new one's is counted beside.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    INSERT INTO ledger_entries (entry, account, asset, amount)
    SELECT 'network_fees_before_operator:' || paid.asset, line.account, paid.asset, line.amount
    FROM (
      SELECT asset, sum(amount) AS amount FROM ledger_entries WHERE account = 'network_fees'
      GROUP BY asset HAVING sum(amount) <> 0
    ) paid
    CROSS JOIN LATERAL (VALUES ('operator', paid.amount), ('network_fees', -paid.amount)) AS line (account, amount);
    CREATE INDEX solana_pay_cosigned_transactions_landable_idx
      ON solana_pay_cosigned_transactions (network, last_valid_block_height);
  `.execute(db);
}
