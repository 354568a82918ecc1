import { type Db, inTransaction } from '../db/database.ts';
import { newId } from '../ids.ts';
import { postFunding } from './ledger.ts';

/**
 * Records value put into the collector from outside (the devnet's faucet says what it credited) as the operator's
 * funding, one entry per asset, so the ledger goes on matching the chain.
 */
export async function recordFunding(db: Db, funded: readonly { asset: string; amount: bigint }[]): Promise<void> {
  const byAsset = new Map<string, bigint>();
  for (const { asset, amount } of funded) byAsset.set(asset, (byAsset.get(asset) ?? 0n) + amount);
  const id = newId('fnd');
  await inTransaction(db, async (trx) => {
    for (const [asset, amount] of byAsset) await postFunding(trx, `funding:${id}:${asset}`, asset, amount);
  });
}
