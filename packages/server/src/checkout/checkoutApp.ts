import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { DEFAULT_PARTNER_VERSION } from '../http/versions.ts';
import { newId } from '../ids.ts';

const PURPOSE = 'checkout';

/**
 * The App-Id of the service's own checkout page, created with its service-owned partner on first use. The page
 * calls the gateway with this public id and a per-browser Client-Id; no API key exists for that partner. An
 * advisory lock makes concurrent first calls from several processes agree on one app.
 */
export async function ensureCheckoutAppId(db: Db): Promise<string> {
  const existing = await db
    .selectFrom('service_apps')
    .select('app_id')
    .where('purpose', '=', PURPOSE)
    .executeTakeFirst();
  if (existing) return existing.app_id;
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('paygate:service_apps:checkout'))`.execute(trx);
    const raced = await trx
      .selectFrom('service_apps')
      .select('app_id')
      .where('purpose', '=', PURPOSE)
      .executeTakeFirst();
    if (raced) return raced.app_id;
    const partnerId = newId('ptr');
    const appId = newId('app');
    await trx
      .insertInto('partners')
      .values({ id: partnerId, name: 'paygate checkout (service)', pinned_version: DEFAULT_PARTNER_VERSION })
      .execute();
    await trx
      .insertInto('apps')
      .values({ id: appId, partner_id: partnerId, name: 'Browser wallet (checkout page)', icon_url: null })
      .execute();
    await trx.insertInto('service_apps').values({ purpose: PURPOSE, app_id: appId }).execute();
    return appId;
  });
}
