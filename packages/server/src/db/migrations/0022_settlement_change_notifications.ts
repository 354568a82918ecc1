import { type Kysely, sql } from 'kysely';

/**
 * A merchant's view includes its settlement destinations, cached beside its row: every change of a destination,
 * whoever writes it (the API, the operator command, SQL), notifies `merchant_changed` with its merchant id at
 * commit, as a change of the merchant row does (0014).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION notify_settlement_destination_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('merchant_changed', CASE WHEN TG_OP = 'DELETE' THEN OLD.merchant_id ELSE NEW.merchant_id END);
      RETURN NULL;
    END $$;

    CREATE TRIGGER crypto_settlements_notify_changed AFTER INSERT OR UPDATE OR DELETE ON crypto_settlements
      FOR EACH ROW EXECUTE FUNCTION notify_settlement_destination_changed();
    CREATE TRIGGER fiat_settlements_notify_changed AFTER INSERT OR UPDATE OR DELETE ON fiat_settlements
      FOR EACH ROW EXECUTE FUNCTION notify_settlement_destination_changed();
  `.execute(db);
}
