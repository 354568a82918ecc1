import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { addressKey, parseAccountId } from '../chains/caip.ts';
import type { Db } from '../db/database.ts';
import { type ScreeningAnswer, type ScreeningProvider, ScreeningUnavailableError } from './addressScreening.ts';
import type { ParsedScreeningList } from './screeningListFile.ts';

/**
 * Screening against the list the operator loaded last (`paygate screening load`), read from the database at each
 * check, so a list loaded while the service runs applies to every process at once.
 */
export class ListScreening implements ScreeningProvider {
  readonly name = 'list';

  constructor(private readonly db: Db) {}

  async screen(accounts: string[]): Promise<ScreeningAnswer> {
    const keys = accounts.map((account) => {
      const parsed = parseAccountId(account);
      return parsed ? addressKey(parsed.namespace, parsed.address) : null;
    });
    const { rows } = await sql<{ version: string; address: string | null }>`
      WITH newest AS (SELECT version FROM screening_lists ORDER BY loaded_at DESC, version LIMIT 1)
      SELECT newest.version, entry.address
      FROM newest
      LEFT JOIN screening_list_entries entry
        ON entry.version = newest.version AND entry.address = ANY(${keys.filter((key) => key !== null)}::text[])
    `.execute(this.db);
    const version = rows[0]?.version;
    if (!version) throw new ScreeningUnavailableError('no screening list is loaded (paygate screening load <file>)');
    const listed = new Set(rows.map((row) => row.address));
    return {
      version,
      verdicts: accounts.map((account, index) => {
        const key = keys[index];
        return key && listed.has(key)
          ? { account, blocked: true, reason: `on the screening list ${version}` }
          : { account, blocked: false };
      }),
    };
  }
}

/** What loading a list did: its version (the hash of its addresses), how many, and the lines skipped. */
export interface LoadedScreeningList {
  version: string;
  entries: number;
  skipped: ParsedScreeningList['skipped'];
}

/**
 * Makes `list` the one screened against, in one transaction: a check in any process sees the old list or the new,
 * never a part. The entries of older lists go; their versions stay, as decisions name them.
 */
export async function loadScreeningList(
  db: Db,
  list: ParsedScreeningList,
  source: string,
): Promise<LoadedScreeningList> {
  const version = createHash('sha256').update(list.addresses.join('\n')).digest('hex').slice(0, 16);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('screening_lists')
      .values({ version, source, entries: list.addresses.length })
      .onConflict((conflict) =>
        conflict.column('version').doUpdateSet({ source, loaded_at: sql`now()`, entries: list.addresses.length }),
      )
      .execute();
    await trx.deleteFrom('screening_list_entries').where('version', '<>', version).execute();
    const present = await trx
      .selectFrom('screening_list_entries')
      .select(sql<number>`count(*)::int`.as('count'))
      .where('version', '=', version)
      .executeTakeFirstOrThrow();
    if (present.count === list.addresses.length) return;
    // Large lists go in slices: one statement's parameters are limited to 65,535.
    for (let start = 0; start < list.addresses.length; start += 10_000) {
      await trx
        .insertInto('screening_list_entries')
        .values(list.addresses.slice(start, start + 10_000).map((address) => ({ version, address })))
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    }
  });
  return { version, entries: list.addresses.length, skipped: list.skipped };
}
