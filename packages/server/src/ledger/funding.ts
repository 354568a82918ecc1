import type { ChainRegistry } from '../chains/registry.ts';
import { type Db, inTransaction } from '../db/database.ts';
import { newId } from '../ids.ts';
import type { PayoutSender } from '../payouts/payout.ts';
import { collectorHoldings } from './audit.ts';
import { postFunding } from './ledger.ts';

/**
 * Runs `fund`, which moves value into the collector from outside (the devnet's faucet), and records what arrived
 * of each token as the operator's funding, so the ledger goes on matching the chain.
 */
export async function recordFunding(
  db: Db,
  chains: ChainRegistry,
  senders: Record<string, PayoutSender>,
  fund: () => Promise<void>,
): Promise<void> {
  const before = await collectorHoldings(chains, senders);
  await fund();
  const after = await collectorHoldings(chains, senders);
  const id = newId('fnd');
  await inTransaction(db, async (trx) => {
    for (const [asset, held] of after) {
      const arrived = held - (before.get(asset) ?? 0n);
      if (arrived !== 0n) await postFunding(trx, `funding:${id}:${asset}`, asset, arrived);
    }
  });
}
