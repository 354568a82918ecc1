import { type Kysely, sql } from 'kysely';

/**
 * Deposits recorded before the ledger held their tokens at the deposit addresses with no entry saying so (a deposit
 * recorded since is entered as `deposit:<chain>:<tx hash>:<log index>`), so their sweep would take from
 * `deposit_addresses` what it was never given and the audit of the deposit addresses would differ. Each such deposit
 * of a listed token opens `deposit_addresses` with what it brought (`opening:deposit:<chain>:<tx hash>:<log index>`,
 * against `opening_balances`) when it is not swept yet, or was swept since the ledger began (its `swept:` entry is
 * there); one swept before the ledger has neither and left nothing at its address. Run again, it writes nothing new.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    INSERT INTO ledger_entries (entry, account, asset, amount)
    SELECT 'opening:deposit:' || deposit.name, line.account, deposit.asset, line.amount
    FROM (
      SELECT chain || ':' || tx_hash || ':' || log_index AS name, asset, amount, swept_by
      FROM evm_deposits WHERE asset IS NOT NULL AND amount <> 0
    ) deposit
    CROSS JOIN LATERAL (VALUES ('deposit_addresses', deposit.amount), ('opening_balances', -deposit.amount))
      AS line (account, amount)
    WHERE NOT EXISTS (SELECT 1 FROM ledger_entries received WHERE received.entry = 'deposit:' || deposit.name)
      AND (
        deposit.swept_by IS NULL
        OR EXISTS (SELECT 1 FROM ledger_entries swept WHERE swept.entry = 'swept:' || deposit.name)
      )
    ON CONFLICT (entry, account, asset) DO NOTHING
  `.execute(db);
}
