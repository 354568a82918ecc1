import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { repeatEvery, type RepeatingTask } from '../jobs/repeatEvery.ts';
import type { Logger } from '../log.ts';

/** Folds the appended statistics deltas into the daily totals (migration 0013); returns how many were folded. */
export async function foldPaymentStats(db: Db): Promise<number> {
  const { rows } = await sql<{ folded: string }>`SELECT fold_payment_stats() AS folded`.execute(db);
  return Number(rows[0]?.folded ?? 0);
}

/** Keeps the deltas few, so the list's statistics read a short table; every process may run it at once. */
export function foldPaymentStatsEvery(db: Db, intervalMs: number, log: Logger): RepeatingTask {
  return repeatEvery(
    () => foldPaymentStats(db),
    intervalMs,
    (error) => log.warn(`folding payment statistics failed: ${error.message}`),
  );
}
