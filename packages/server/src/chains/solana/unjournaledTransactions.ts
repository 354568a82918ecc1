import { setTimeout as sleep } from 'node:timers/promises';
import { address, signature as toSignature } from '@solana/kit';
import type { Db } from '../../db/database.ts';
import { accountSignatures } from './accountSignatures.ts';
import type { SolanaRpc } from './rpc.ts';
import { withSolanaPayTables } from './solanaPayTables.ts';

/** How often a listed transaction the node does not serve yet is asked for, and how long apart. */
const READ_ATTEMPTS = 3;
const READ_RETRY_MS = 500;

export interface UnjournaledTransactionsOptions {
  db: Db;
  rpc: SolanaRpc;
  network: string;
  collector: string;
  commitment: 'confirmed' | 'finalized';
}

/** Of `signatures`, those the service journaled, co-signed for a transaction request, or the operator accepted. */
async function heldSignatures(db: Db, signatures: string[]): Promise<Set<string>> {
  if (!signatures.length) return new Set();
  const tables = withSolanaPayTables(db);
  const [journaled, cosigned, accepted] = await Promise.all([
    tables.selectFrom('solana_transactions').select('signature').where('signature', 'in', signatures).execute(),
    tables
      .selectFrom('solana_pay_cosigned_transactions')
      .select('signature')
      .where('signature', 'in', signatures)
      .execute(),
    db.selectFrom('collector_accepted_transactions').select('signature').where('signature', 'in', signatures).execute(),
  ]);
  return new Set([...journaled, ...cosigned, ...accepted].map((row) => row.signature));
}

/**
 * Finds the transactions the collector signed on a Solana network that no record of the service holds: Solana has no
 * nonce to compare, so the collector's address's transactions since the newest one of the journal that landed are
 * read, and each one no record holds is fetched once to see whether the collector signed it (anyone may send it
 * coin, or create its token account, without its signature). While the journal is complete there are none: every
 * transaction the collector signs is journaled or recorded before it is handed out. A restored journal that never saw
 * one land has no point to read from, and finds none.
 */
export class UnjournaledTransactions {
  /**
   * Signatures fetched and found not signed by the collector: not fetched again by this process while they are among
   * the newest it reads.
   */
  private othersTransactions = new Set<string>();

  constructor(private readonly options: UnjournaledTransactionsOptions) {}

  /** The signatures, newest first, of the collector's transactions the service holds no record of. */
  async find(): Promise<string[]> {
    const { db, rpc, network, collector, commitment } = this.options;
    const newestLanded = await db
      .selectFrom('solana_transactions')
      .select('signature')
      .where('network', '=', network)
      .where('slot', 'is not', null)
      .orderBy('slot', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!newestLanded) return [];
    const listed = (
      await accountSignatures(rpc, address(collector), { commitment, until: newestLanded.signature })
    ).map((entry) => entry.signature);
    // Those read no more are older than a journaled transaction that landed: they are never read again.
    this.othersTransactions = new Set(listed.filter((signature) => this.othersTransactions.has(signature)));
    const candidates = listed.filter((signature) => !this.othersTransactions.has(signature));
    const held = await heldSignatures(db, candidates);
    const signedByCollector = new Set<string>();
    let unread = candidates.filter((signature) => !held.has(signature));
    for (let attempt = 1; unread.length && attempt <= READ_ATTEMPTS; attempt += 1) {
      if (attempt > 1) await sleep(READ_RETRY_MS);
      const stillUnread: string[] = [];
      for (const signature of unread) {
        const signers = await this.signersOf(signature);
        if (!signers) stillUnread.push(signature);
        else if (signers.includes(collector)) signedByCollector.add(signature);
        else this.othersTransactions.add(signature);
      }
      unread = stillUnread;
    }
    // A node may list a transaction a moment before it serves it; one still not served counts as missing, so that
    // nothing is sent meanwhile.
    return listed.filter((signature) => signedByCollector.has(signature) || unread.includes(signature));
  }

  /** The accounts that signed the transaction; undefined while the node does not serve it. */
  private async signersOf(signature: string): Promise<string[] | undefined> {
    const { rpc, commitment } = this.options;
    const fetched = await rpc
      .getTransaction(toSignature(signature), { commitment, encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    const message = fetched?.transaction.message;
    return message?.accountKeys.slice(0, message.header.numRequiredSignatures).map(String);
  }
}

/** The operator accepts these transactions of the collector as sent: they no longer stop the service's own. */
export async function acceptTransactions(db: Db, network: string, signatures: string[]): Promise<void> {
  if (!signatures.length) return;
  await db
    .insertInto('collector_accepted_transactions')
    .values(signatures.map((signature) => ({ signature, network })))
    .onConflict((conflict) => conflict.column('signature').doNothing())
    .execute();
}
