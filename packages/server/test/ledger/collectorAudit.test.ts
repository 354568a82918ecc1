import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import {
  auditBuyersBalances,
  auditCollector,
  auditMerchantBalances,
  finalReadPoints,
  readAuditedLedger,
} from '../../src/ledger/audit.ts';
import { payoutSenders } from '../../src/payouts/index.ts';
import { RefundWorker } from '../../src/refunds/refundWorker.ts';
import { setFeeSchedule } from '../../src/settlement/feeSchedules.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import {
  addDestination,
  newEvmDestination,
  newSolanaDestination,
  payInUsdc,
  usdcAssets,
  settlementWorker,
} from '../settlement/support.ts';
import { ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { call } from '../support/testServer.ts';
import { warningsInto } from '../support/warnings.ts';

describe("the ledger against the chain: the collector's balances on the devnet", () => {
  let testbed: GatewayTestbed;
  const problems: string[] = [];

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
    await setFeeSchedule(testbed.server.db, testbed.partner.partnerId, {
      percentage: '1.5',
      fixed: [{ currency: 'USD', amount: 30n }],
    });
  }, 180_000);
  afterAll(() => testbed?.close());

  const senders = () =>
    payoutSenders({ db: testbed.server.db, chains: testbed.chains, services: testbed.services, clock: systemClock });
  const audit = async () =>
    auditCollector(
      await readAuditedLedger(testbed.server.db),
      testbed.chains,
      senders(),
      finalReadPoints((network) => testbed.services.evm.clients.for(network)),
    );

  it('balances to the base unit after payments in, a refund, settlements out and the network fees they cost, all paid by the operator', async () => {
    // What the devnet gave the collector before the service took anything: the operator's funding, recorded.
    const opening = await audit();
    expect(opening.length).toBeGreaterThan(0);
    // Each line says where the chain was read: the devnet's EVM network at its newest final block (its head, at one
    // confirmation), Solana at the commitment its followers record at.
    expect(new Set(opening.map((line) => line.readAt.replace(/^block \d+$/, 'block')))).toEqual(
      new Set(['block', 'confirmed']),
    );
    expect(opening.filter((line) => line.difference !== '0')).toEqual([]);

    const assets = usdcAssets(testbed);
    const merchantId = testbed.merchantId;
    await addDestination(testbed, merchantId, assets.evm.caip19, newEvmDestination(testbed));
    await addDestination(testbed, merchantId, assets.solana.caip19, await newSolanaDestination(testbed));
    const evmPayment = await payInUsdc(testbed, merchantId, 'evm', 2_500n);
    await payInUsdc(testbed, merchantId, 'solana', 1_800n);

    const refund = await call(testbed.server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': merchantId },
      body: { paymentId: evmPayment, amount: { unit: 'iso4217/USD', value: '400' }, send: true },
    });
    expect(refund.status, refund.text).toBe(200);
    const refunds = new RefundWorker({
      db: testbed.server.db,
      chains: testbed.chains,
      services: testbed.services,
      clock: testbed.clock,
      log: warningsInto(problems),
    });
    await expect
      .poll(
        async () => {
          await refunds.runOnce();
          return (await testbed.server.db.selectFrom('refunds').select('status').executeTakeFirstOrThrow()).status;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe('succeeded');

    const settlements = settlementWorker(testbed, problems);
    await settlements.runOnce();
    await expect
      .poll(
        async () =>
          (
            await testbed.server.db
              .selectFrom('settlement_batches')
              .select('status')
              .where('status', 'in', ['claimed', 'sent'])
              .execute()
          ).length,
        { timeout: 30_000, interval: 200 },
      )
      .toBe(0);
    expect(problems).toEqual([]);

    const after = await audit();
    expect(after.filter((line) => line.difference !== '0')).toEqual([]);
    // The collector kept the fees, and paid gas for the relayed payment, the refund and the settlement.
    const before = new Map(opening.map((line) => [line.asset, BigInt(line.chain)]));
    const ether = testbed.chains
      .network(testbed.devnet.manifest.evm[0]!.caip2)
      ?.tokens.find((token) => token.method === 'native');
    const held = new Map(after.map((line) => [line.asset, BigInt(line.chain)]));
    expect(held.get(ether?.caip19 as string)).toBeLessThan(before.get(ether?.caip19 as string) as bigint);
    expect(held.get(assets.evm.caip19)).toBeGreaterThan(before.get(assets.evm.caip19) ?? 0n);
    // On Solana the collector paid the sponsored payment's fee, the settlement's, and rent for the merchant's
    // token account.
    const sol = testbed.devnet.manifest.solana.nativeToken.caip19;
    expect(held.get(sol)).toBeLessThan(before.get(sol) as bigint);
    const spent = await testbed.server.db
      .selectFrom('ledger_entries')
      .select('entry')
      .where('account', '=', 'collector')
      .where('entry', 'like', 'network_fee:%')
      .execute();
    expect(spent.length).toBeGreaterThanOrEqual(3);
    // Every network fee was the operator's: no tenant is owed ETH or SOL here, so all the collector holds of them
    // is what the operator's funding left after paying each fee, and nothing stays reserved once all are final.
    for (const native of [ether?.caip19 as string, sol]) {
      expect(await ledgerBalanceOf(testbed.server.db, 'operator', native)).toBe(held.get(native));
      expect(await ledgerBalanceOf(testbed.server.db, 'network_fees', native)).toBe(0n);
    }
    // And every merchant balance and buyers' balance of this database agrees with its records.
    expect([
      ...(await auditMerchantBalances(testbed.server.db)),
      ...(await auditBuyersBalances(testbed.server.db)),
    ]).toSatisfy((lines: { difference: string }[]) => lines.every((line) => line.difference === '0'));
  });
});
