import { type Address, signature as toSignature } from '@solana/kit';
import type { Db } from '../../db/database.ts';
import type { SolanaRpc } from './rpc.ts';
import { withSolanaPayTables } from './solanaPayTables.ts';

/** The most signatures one `getSignaturesForAddress` call returns. */
const PAGE = 1000;

/** A transaction that touched an account, as `getSignaturesForAddress` lists it: its error, null when it succeeded. */
export interface ListedSignature {
  signature: string;
  err: unknown;
}

/**
 * The transactions that touched `account`, newest first: every one after `until` (paging back to it, or to the
 * account's first transaction when `until` is undefined), or with `newest`, only that many of the newest.
 */
export async function accountSignatures(
  rpc: SolanaRpc,
  account: Address,
  read: { commitment: 'confirmed' | 'finalized' } & ({ until: string | undefined } | { newest: number }),
): Promise<ListedSignature[]> {
  const listed: ListedSignature[] = [];
  const until = 'until' in read ? read.until : undefined;
  let before: string | undefined;
  for (;;) {
    const limit = 'newest' in read ? read.newest : PAGE;
    const page = await rpc
      .getSignaturesForAddress(account, {
        commitment: read.commitment,
        limit,
        ...(until ? { until: toSignature(until) } : {}),
        ...(before ? { before: toSignature(before) } : {}),
      })
      .send();
    listed.push(...page);
    if ('newest' in read || page.length < limit) return listed;
    before = page[page.length - 1]?.signature;
  }
}

/**
 * Of `signatures`, those of transactions the service sent or co-signed through its journal, or recorded as Solana
 * Pay transfers: what the followers of the collector's accounts need not fetch.
 */
export async function serviceSignatures(db: Db, signatures: readonly string[]): Promise<Set<string>> {
  if (!signatures.length) return new Set();
  const tables = withSolanaPayTables(db);
  const [sent, paid] = await Promise.all([
    tables.selectFrom('solana_transactions').select('signature').where('signature', 'in', signatures).execute(),
    tables.selectFrom('solana_pay_transfers').select('signature').where('signature', 'in', signatures).execute(),
  ]);
  return new Set([...sent, ...paid].map((row) => row.signature));
}
