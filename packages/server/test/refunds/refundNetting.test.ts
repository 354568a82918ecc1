import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { RefundWorker } from '../../src/refunds/refundWorker.ts';
import { SettlementWorker } from '../../src/settlement/worker.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { addDestination, newEvmDestination, payInUsdc, usdcAssets, usdcBalance } from '../settlement/support.ts';
import { createMerchant } from '../support/fixtures.ts';
import { call, expectErrorBody } from '../support/testServer.ts';
import { auditMerchantBalances } from '../../src/ledger/audit.ts';

/**
 * On-chain refunds are taken from the merchant's balance: before a payment is settled they come out of what the
 * next batch pays; after it they are refused while the merchant is owed less than they send (the collector's other
 * money is never used), and paid from later payments once those cover them. What the collector received always
 * equals what it settled, refunded and still holds for the merchant, to the token unit, as read from the chain.
 */
describe('refunds netted from settlements', () => {
  let testbed: GatewayTestbed;
  let settlement: SettlementWorker;
  let refunds: RefundWorker;

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
    const options = { db: testbed.server.db, chains: testbed.chains, services: testbed.services, clock: systemClock };
    settlement = new SettlementWorker({ ...options, baseUrl: () => testbed.server.url, minimumBatch: '0' });
    refunds = new RefundWorker(options);
  }, 180_000);
  afterAll(() => testbed?.close());

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const askRefund = (merchantId: string, paymentId: string, cents: string) =>
    call(testbed.server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': merchantId },
      body: { paymentId, amount: { unit: 'iso4217/USD', value: cents }, send: true },
    });

  async function sentBack(merchantId: string, paymentId: string, cents: string) {
    const made = await askRefund(merchantId, paymentId, cents);
    expect(made.status, made.text).toBe(200);
    await refunds.runOnce();
    await until(
      () =>
        testbed.server.db
          .selectFrom('refunds')
          .select('status')
          .where('id', '=', made.body.id)
          .executeTakeFirstOrThrow(),
      (refund) => refund.status !== 'pending',
    );
  }

  /** A settlement round, its batches taken to the end; the amounts of the batches it made. */
  async function settleRound(merchantId: string): Promise<bigint[]> {
    const round = await settlement.runOnce();
    const batches = round.created.length
      ? await until(
          () =>
            testbed.server.db
              .selectFrom('settlement_batches')
              .select(['amount', 'status', 'refunds_deducted'])
              .where('id', 'in', round.created)
              .where('merchant_id', '=', merchantId)
              .execute(),
          (rows) => rows.every((row) => row.status === 'confirmed'),
        )
      : [];
    return batches.map((batch) => BigInt(batch.amount));
  }

  it('deducts refunds before settlement, pays those after it from later payments, and accounts for every token unit on chain', async () => {
    const merchantId = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
    const destination = newEvmDestination(testbed);
    await addDestination(testbed, merchantId, usdcAssets(testbed).evm.caip19, destination);
    const buyer = testbed.evmAccount('alice');
    const collector = `${testbed.evmChain()}:${testbed.services.evm.collector}`;
    const buyerBefore = await usdcBalance(testbed, buyer);
    const collectorBefore = await usdcBalance(testbed, collector);
    const units = (cents: bigint) => cents * 10_000n;

    const first = await payInUsdc(testbed, merchantId, 'evm', 1000n);
    await payInUsdc(testbed, merchantId, 'evm', 500n);
    await sentBack(merchantId, first, '400');
    expect(await settleRound(merchantId)).toEqual([units(1100n)]);
    expect(await usdcBalance(testbed, destination)).toBe(units(1100n));

    // Refunded after its payment was settled: the merchant is owed nothing, so the refund is refused, naming the
    // shortfall, and nothing leaves the collector; it is paid once later payments cover it.
    const collectorSettled = await usdcBalance(testbed, collector);
    const asset = `caip19/${usdcAssets(testbed).evm.caip19}`;
    const refused = await askRefund(merchantId, first, '600');
    expect([refused.status, expectErrorBody(refused).code]).toEqual([409, 'insufficient_balance']);
    expect(refused.body.details).toEqual({
      balance: { unit: asset, value: '0' },
      needed: { unit: asset, value: units(600n).toString() },
      shortfall: { unit: asset, value: units(600n).toString() },
    });
    const third = await payInUsdc(testbed, merchantId, 'evm', 300n);
    const stillShort = await askRefund(merchantId, first, '600');
    expect(stillShort.body.details?.shortfall).toEqual({ unit: asset, value: units(300n).toString() });
    expect(await refunds.runOnce()).toEqual({ driven: [], waiting: [] });
    expect(await usdcBalance(testbed, collector)).toBe(collectorSettled + units(300n));
    await payInUsdc(testbed, merchantId, 'evm', 700n);
    await sentBack(merchantId, first, '600');
    expect(await settleRound(merchantId)).toEqual([units(400n)]);
    expect(await usdcBalance(testbed, destination)).toBe(units(1500n));

    const paid = units(1000n + 500n + 300n + 700n);
    const refunded = units(400n + 600n);
    const settled = await usdcBalance(testbed, destination);
    expect(paid).toBe(settled + refunded);
    expect((await usdcBalance(testbed, buyer)) - buyerBefore).toBe(refunded - paid);
    // No fees in this partner's schedule: the collector keeps nothing of this merchant's payments.
    expect(await usdcBalance(testbed, collector)).toBe(collectorBefore);
    const deducted = await testbed.server.db
      .selectFrom('settlement_batches')
      .select('refunds_deducted')
      .where('merchant_id', '=', merchantId)
      .where('status', '=', 'confirmed')
      .execute();
    expect(deducted.reduce((sum, batch) => sum + BigInt(batch.refunds_deducted), 0n)).toBe(refunded);
    const balances = await auditMerchantBalances(testbed.server.db);
    expect(balances.filter((line) => line.merchantId === merchantId)).toEqual([]);
    const waited = await testbed.server.db
      .selectFrom('payments')
      .select('settled_at')
      .where('id', '=', third)
      .executeTakeFirstOrThrow();
    expect(waited.settled_at).not.toBeNull();
  });
});
