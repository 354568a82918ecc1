import { expect } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { InflowReturnWorker } from '../../src/collectorInflows/inflowReturns.ts';
import { auditCollector, finalReadPoints, readAuditedLedger } from '../../src/ledger/audit.ts';
import { payoutSenders } from '../../src/payouts/index.ts';
import type { GatewayTestbed } from '../gateway/support/gatewayTestbed.ts';

/** What the collector-inflow tests read of a testbed: its inflows, the collector's audit, and the returns worker. */
export function collectorInflowChecks(testbed: () => GatewayTestbed) {
  const db = () => testbed().server.db;
  /** The inflows a transaction made, by its hash as stored (an EVM hash in lower case, a Solana signature as it is). */
  const inflowsOf = (hash: string) =>
    db().selectFrom('collector_inflows').selectAll().where('tx_hash', '=', hash).execute();
  /** The collector's balances on the chain against the ledger, as `paygate audit` reads them. */
  const audit = async () => {
    const { chains, services } = testbed();
    return auditCollector(
      await readAuditedLedger(db()),
      chains,
      payoutSenders({ db: db(), chains, services, clock: systemClock }),
      finalReadPoints((network) => services.evm.clients.for(network)),
    );
  };
  /** Waits until the follower judged each of a transaction's inflows; its rows. */
  const judged = async (hash: string, count = 1) => {
    await expect
      .poll(async () => (await inflowsOf(hash)).filter((row) => row.outcome !== null).length, {
        timeout: 60_000,
        interval: 1_000,
      })
      .toBe(count);
    return inflowsOf(hash);
  };
  /** Runs the returns worker until every listed transaction's inflow was sent back. */
  const returnedAll = async (hashes: string[]) => {
    const { chains, services } = testbed();
    const returns = new InflowReturnWorker({ db: db(), chains, services, clock: systemClock });
    // Two rounds at once: each try is taken by one of them.
    await Promise.all([returns.runOnce(), returns.runOnce()]);
    await expect
      .poll(
        async () => {
          await returns.runOnce();
          return Promise.all(hashes.map(async (hash) => (await inflowsOf(hash))[0]?.return_status));
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toEqual(hashes.map(() => 'returned'));
  };
  return { inflowsOf, audit, judged, returnedAll };
}
