import { address, signature as toSignature } from '@solana/kit';
import type { Db } from '../../db/database.ts';
import { accountSignatures } from './accountSignatures.ts';
import type { SolanaRpc } from './rpc.ts';
import { withSolanaPayTables } from './solanaPayTables.ts';

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
  /** Signatures fetched and found not signed by the collector: never fetched again by this process. */
  private readonly othersTransactions = new Set<string>();

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
    const listed = await accountSignatures(rpc, address(collector), { commitment, until: newestLanded.signature });
    const candidates = listed
      .map((entry) => entry.signature)
      .filter((signature) => !this.othersTransactions.has(signature));
    const held = await heldSignatures(db, candidates);
    const unheld: string[] = [];
    for (const signature of candidates) {
      if (held.has(signature)) continue;
      const fetched = await rpc
        .getTransaction(toSignature(signature), { commitment, encoding: 'json', maxSupportedTransactionVersion: 0 })
        .send();
      const { message } = fetched?.transaction ?? {};
      // Not served yet: counted until it can be read, so nothing is sent meanwhile.
      const signers = message
        ? message.accountKeys.slice(0, message.header.numRequiredSignatures).map(String)
        : [collector];
      if (signers.includes(collector)) unheld.push(signature);
      else this.othersTransactions.add(signature);
    }
    return unheld;
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
