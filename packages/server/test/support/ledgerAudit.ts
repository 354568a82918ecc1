import { type Db, inTransaction } from '../../src/db/database.ts';
import { auditBuyersBalances, auditMerchantBalances } from '../../src/ledger/audit.ts';
import { ownerBalance } from '../../src/ledger/ledger.ts';

/**
 * The ledger audit's lines for one merchant (what it is owed, what its buyers' exceptions hold), and those of them
 * where the ledger and the records differ: other test files write to the run's database meanwhile.
 */
export async function auditOfMerchant(db: Db, merchantId: string) {
  const lines = [
    ...(await auditMerchantBalances(db)).map((line) => ({ check: 'merchant', ...line })),
    ...(await auditBuyersBalances(db)).map((line) => ({ check: 'buyers', ...line })),
  ].filter((line) => line.merchantId === merchantId);
  return { lines, differing: lines.filter((line) => line.difference !== '0') };
}

/** What an account the collector owes holds in `asset` per the ledger, in minor units (its credit balance). */
export function ledgerBalanceOf(db: Db, account: string, asset: string): Promise<bigint> {
  return inTransaction(db, (trx) => ownerBalance(trx, account, asset));
}
