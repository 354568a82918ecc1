import { randomBytes } from 'node:crypto';
import type { Db } from './database.ts';

/**
 * A random secret shared by every process of the service (cursor signing, form tokens), created on first use
 * and kept in the database so that all processes agree on it.
 */
export async function serviceSecret(db: Db, name: string): Promise<string> {
  await db
    .insertInto('service_secrets')
    .values({ name, value: randomBytes(32).toString('base64url') })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
