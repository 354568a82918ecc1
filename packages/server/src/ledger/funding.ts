import { type Db, inTransaction } from '../db/database.ts';
import { newId } from '../ids.ts';
import { postFunding } from './ledger.ts';

/**
 * A transaction's hash as the chain followers store it: an EVM hash in lower case, a Solana signature (base58, where
 * case matters) as it is.
 */
export const storedTransactionHash = (hash: string) => (/^0x[0-9a-fA-F]+$/.test(hash) ? hash.toLowerCase() : hash);

/**
 * Records value put into the collector from outside (the devnet's faucet says what it credited) as the operator's
 * funding: what a transaction moved as its entry named by that transaction (`funding:<hash>`, so the collector's
 * inflow follower knows it as funding), the rest one entry per asset.
 */
export async function recordFunding(
  db: Db,
  funded: readonly { asset: string; amount: bigint; txHash?: string }[],
): Promise<void> {
  const byAsset = new Map<string, bigint>();
  const byTransaction = new Map<string, { asset: string; amount: bigint }>();
  for (const { asset, amount, txHash } of funded) {
    if (txHash) byTransaction.set(storedTransactionHash(txHash), { asset, amount });
    else byAsset.set(asset, (byAsset.get(asset) ?? 0n) + amount);
  }
  const id = newId('fnd');
  await inTransaction(db, async (trx) => {
    for (const [asset, amount] of byAsset) await postFunding(trx, `funding:${id}:${asset}`, asset, amount);
    for (const [hash, { asset, amount }] of byTransaction) await postFunding(trx, `funding:${hash}`, asset, amount);
  });
}
