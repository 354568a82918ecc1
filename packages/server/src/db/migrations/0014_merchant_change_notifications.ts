import { type Kysely, sql } from 'kysely';

/**
 * Every change of a merchant row, whoever writes it (the API, operator commands, an administrator's SQL), notifies
 * `merchant_changed` with the merchant id at commit, so every process drops its cached copy.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION notify_merchant_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('merchant_changed', CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
      RETURN NULL;
    END $$;

    CREATE TRIGGER merchants_notify_changed AFTER INSERT OR UPDATE OR DELETE ON merchants
      FOR EACH ROW EXECUTE FUNCTION notify_merchant_changed();
  `.execute(db);
}
