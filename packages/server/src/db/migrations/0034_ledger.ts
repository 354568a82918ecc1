import { type Kysely, sql } from 'kysely';

/**
 * A double-entry ledger of the value the service holds: every line is one account's change in one asset (a debit
 * above zero, a credit below), and the lines of one entry add up to zero per asset, checked when the transaction
 * that writes them commits. Lines are never changed or removed. What the merchants are owed and what buyers'
 * payment exceptions hold when this migration runs are its opening entries, so an upgraded database audits clean.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE ledger_entries (
      id bigserial PRIMARY KEY,
      -- What the entry records, one per event: 'payment:<id>', 'settlement:<batch id>', 'refund:<id>', 'opening:...'.
      entry text NOT NULL,
      -- 'collector', 'deposit_addresses', 'fees', 'merchant:<id>', 'buyers:<merchant id>', 'opening_balances'.
      account text NOT NULL,
      -- CAIP-19 id of the token.
      asset text NOT NULL,
      -- Minor units of the token; a debit is above zero, a credit below.
      amount numeric(78, 0) NOT NULL CHECK (amount <> 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (entry, account, asset)
    );
    CREATE INDEX ledger_entries_account_idx ON ledger_entries (account, asset);
    -- What the collector paid the network for a mined transaction (gas, and an L2's data fee), in wei.
    ALTER TABLE evm_transactions ADD COLUMN fee_paid numeric(78, 0);

    CREATE FUNCTION ledger_entry_balances() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM ledger_entries WHERE entry = NEW.entry GROUP BY asset HAVING sum(amount) <> 0) THEN
        RAISE EXCEPTION 'ledger entry % does not balance', NEW.entry;
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER ledger_entries_balance AFTER INSERT ON ledger_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_entry_balances();

    CREATE FUNCTION ledger_entries_unchanged() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'ledger lines are never changed or removed';
    END $$;
    CREATE TRIGGER ledger_entries_unchanged BEFORE UPDATE OR DELETE ON ledger_entries
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_unchanged();

    INSERT INTO ledger_entries (entry, account, asset, amount)
    SELECT 'opening:' || owed.merchant_id, line.account, owed.asset, line.amount
    FROM (
      SELECT merchant_id, asset, sum(amount) AS amount FROM (
        SELECT merchant_id, token_asset AS asset, settlement_amount::numeric AS amount FROM payments
        WHERE status = 'succeeded' AND settled_at IS NULL AND token_asset IS NOT NULL AND settlement_amount IS NOT NULL
        UNION ALL
        SELECT merchant_id, token_asset, -token_value FROM refunds
        WHERE method = 'onchain' AND status = 'succeeded' AND exception_id IS NULL AND token_asset IS NOT NULL
        UNION ALL
        SELECT merchant_id, asset, refunds_deducted FROM settlement_batches WHERE status = 'confirmed'
      ) parts GROUP BY merchant_id, asset HAVING sum(amount) <> 0
    ) owed
    CROSS JOIN LATERAL (VALUES ('merchant:' || owed.merchant_id, -owed.amount), ('opening_balances', owed.amount))
      AS line (account, amount);

    INSERT INTO ledger_entries (entry, account, asset, amount)
    SELECT 'opening:buyers:' || owed.merchant_id, line.account, owed.asset, line.amount
    FROM (
      SELECT payments.merchant_id, exception ->> 'asset' AS asset, sum((exception ->> 'amount')::numeric) AS amount
      FROM payments CROSS JOIN LATERAL jsonb_array_elements(payments.exceptions) AS exception
      WHERE exception ->> 'acceptedAt' IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM refunds WHERE refunds.exception_id = exception ->> 'id' AND refunds.status = 'succeeded'
        )
      GROUP BY 1, 2 HAVING sum((exception ->> 'amount')::numeric) <> 0
    ) owed
    CROSS JOIN LATERAL (VALUES ('buyers:' || owed.merchant_id, -owed.amount), ('opening_balances', owed.amount))
      AS line (account, amount);
  `.execute(db);
}
