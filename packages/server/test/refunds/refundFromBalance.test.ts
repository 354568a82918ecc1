import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import {
  auditBuyersBalances,
  auditMerchantBalances,
  auditNegativeBalances,
  auditPayoutsInFlight,
} from '../../src/ledger/audit.ts';
import { merchantAccount } from '../../src/ledger/ledger.ts';
import { RefundWorker } from '../../src/refunds/refundWorker.ts';
import type { SettlementWorker } from '../../src/settlement/worker.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import {
  addDestination,
  newEvmDestination,
  payInUsdc,
  settlementWorker,
  usdcAssets,
  usdcBalance,
} from '../settlement/support.ts';
import { createMerchant } from '../support/fixtures.ts';
import { ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { call, expectErrorBody } from '../support/testServer.ts';

/**
 * The collector holds every merchant's money in one pool: an on-chain refund is paid from what its own merchant is
 * owed, never from the pool. Each test is an attack a partner could try to take other merchants' money, and reads
 * the chain and the ledger afterwards: the other merchants' balances are intact and no account is below zero.
 */
describe('on-chain refunds paid only from the merchant’s own balance', () => {
  let testbed: GatewayTestbed;
  let settlement: SettlementWorker;
  let refunds: RefundWorker;
  const problems: string[] = [];
  const units = (cents: bigint) => cents * 10_000n;

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
    const options = { db: testbed.server.db, chains: testbed.chains, services: testbed.services, clock: systemClock };
    settlement = settlementWorker(testbed, problems);
    refunds = new RefundWorker(options);
  }, 180_000);
  afterAll(() => testbed?.close());

  const asset = () => usdcAssets(testbed).evm.caip19;
  const collector = () => `${testbed.evmChain()}:${testbed.services.evm.collector}`;

  const askRefund = (merchantId: string, paymentId: string, cents?: string) =>
    call(testbed.server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': merchantId },
      body: { paymentId, send: true, ...(cents ? { amount: { unit: 'iso4217/USD', value: cents } } : {}) },
    });

  /** Every on-chain refund and settlement batch of the merchant taken to its end by the networks' followers. */
  async function settledAndSent(merchantId: string) {
    await refunds.runOnce();
    await settlement.runOnce();
    await expect
      .poll(
        async () => [
          ...(await testbed.server.db
            .selectFrom('refunds')
            .select('status')
            .where('merchant_id', '=', merchantId)
            .where('status', '=', 'pending')
            .execute()),
          ...(await testbed.server.db
            .selectFrom('settlement_batches')
            .select('status')
            .where('merchant_id', '=', merchantId)
            .where('status', 'in', ['claimed', 'sent'])
            .execute()),
        ],
        { timeout: 30_000, interval: 100 },
      )
      .toEqual([]);
  }

  const ledgerBalance = (merchantId: string) =>
    ledgerBalanceOf(testbed.server.db, merchantAccount(merchantId), asset());

  /** A merchant with a settlement destination for USDC on the EVM devnet chain. */
  async function settledMerchant(name: string) {
    const merchantId = (
      await createMerchant(testbed.server, testbed.partner.apiKey, {
        merchantName: name,
        merchantEmail: 'owner@shop.example',
      })
    ).id;
    const destination = newEvmDestination(testbed);
    await addDestination(testbed, merchantId, asset(), destination);
    return { merchantId, destination };
  }

  /** The ledger agrees with the records for these merchants, nothing is in flight wrongly, and none is below zero. */
  async function expectLedgerSound(merchantIds: string[]) {
    const db = testbed.server.db;
    const mine = (line: { merchantId: string }) => merchantIds.includes(line.merchantId);
    expect((await auditMerchantBalances(db)).filter(mine).filter((line) => line.difference !== '0')).toEqual([]);
    expect((await auditBuyersBalances(db)).filter(mine).filter((line) => line.difference !== '0')).toEqual([]);
    expect((await auditPayoutsInFlight(db)).filter((line) => line.difference !== '0')).toEqual([]);
    expect(await auditNegativeBalances(db)).toEqual([]);
  }

  it('refuses a refund after settlement, naming the shortfall, and leaves every other merchant’s money where it was', async () => {
    // A merchant that is owed 20.00 USD of USDC it has not been settled yet: the money the attack aims at.
    const victim = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
    await payInUsdc(testbed, victim, 'evm', 2000n);
    const attacker = await settledMerchant('Attacker');
    const paid = await payInUsdc(testbed, attacker.merchantId, 'evm', 1000n);
    await settledAndSent(attacker.merchantId);
    expect(await usdcBalance(testbed, attacker.destination)).toBe(units(1000n));

    const buyer = testbed.evmAccount('alice');
    const [buyerBefore, collectorBefore] = [await usdcBalance(testbed, buyer), await usdcBalance(testbed, collector())];
    const refused = await askRefund(attacker.merchantId, paid);
    expect([refused.status, expectErrorBody(refused).code]).toEqual([409, 'insufficient_balance']);
    const unit = `caip19/${asset()}`;
    expect(refused.body.details).toEqual({
      balance: { unit, value: '0' },
      needed: { unit, value: units(1000n).toString() },
      shortfall: { unit, value: units(1000n).toString() },
    });
    expect(refused.body.message).toContain('short');
    // Nothing was made: no refund row, no transfer, and the worker finds nothing to send.
    const made = await testbed.server.db.selectFrom('refunds').select('id').where('payment_id', '=', paid).execute();
    expect(made).toEqual([]);
    expect(await refunds.runOnce()).toEqual({ driven: [], waiting: [] });
    expect(await usdcBalance(testbed, buyer)).toBe(buyerBefore);
    expect(await usdcBalance(testbed, collector())).toBe(collectorBefore);
    expect(await ledgerBalance(attacker.merchantId)).toBe(0n);
    expect(await ledgerBalance(victim)).toBe(units(2000n));
    // A refund recorded as made some other way is still possible: it moves nothing.
    const recorded = await call(testbed.server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': attacker.merchantId },
      body: { paymentId: paid },
    });
    expect([recorded.status, recorded.body.method, recorded.body.status]).toEqual([200, 'recorded', 'succeeded']);
    expect(await ledgerBalance(attacker.merchantId)).toBe(0n);
    await expectLedgerSound([victim, attacker.merchantId]);
  });

  it('pays a partial refund after a partial settlement only up to what the later payments left the merchant', async () => {
    const merchant = await settledMerchant('Partial');
    const first = await payInUsdc(testbed, merchant.merchantId, 'evm', 1000n);
    await settledAndSent(merchant.merchantId);
    // Paid after the settlement: the merchant is owed 3.00.
    await payInUsdc(testbed, merchant.merchantId, 'evm', 300n);
    const tooMuch = await askRefund(merchant.merchantId, first, '500');
    expect([tooMuch.status, tooMuch.body.details?.shortfall?.value]).toEqual([409, units(200n).toString()]);
    const buyerBefore = await usdcBalance(testbed, testbed.evmAccount('alice'));
    const covered = await askRefund(merchant.merchantId, first, '300');
    expect(covered.status, covered.text).toBe(200);
    expect(await ledgerBalance(merchant.merchantId)).toBe(0n);
    const more = await askRefund(merchant.merchantId, first, '1');
    expect([more.status, expectErrorBody(more).code]).toEqual([409, 'insufficient_balance']);
    await settledAndSent(merchant.merchantId);
    expect(await usdcBalance(testbed, testbed.evmAccount('alice'))).toBe(buyerBefore + units(300n));
    // The 3.00 paid after the settlement went back to the buyer: the next batch has nothing to pay.
    expect(await usdcBalance(testbed, merchant.destination)).toBe(units(1000n));
    expect(await ledgerBalance(merchant.merchantId)).toBe(0n);
    await expectLedgerSound([merchant.merchantId]);
  });

  it('lets a refund racing the settlement batch take the money once: refunded and settled add up to what was paid', async () => {
    for (let round = 0; round < 3; round += 1) {
      const merchant = await settledMerchant(`Racing ${round}`);
      const paid = await payInUsdc(testbed, merchant.merchantId, 'evm', 800n);
      const buyer = testbed.evmAccount('alice');
      const buyerBefore = await usdcBalance(testbed, buyer);
      const [asked] = await Promise.all([askRefund(merchant.merchantId, paid), settlement.runOnce()]);
      expect([200, 409]).toContain(asked.status);
      await settledAndSent(merchant.merchantId);
      const refunded = (await usdcBalance(testbed, buyer)) - buyerBefore;
      const settled = await usdcBalance(testbed, merchant.destination);
      expect(refunded + settled).toBe(units(800n));
      expect(asked.status === 200 ? refunded : settled).toBe(units(800n));
      expect(await ledgerBalance(merchant.merchantId)).toBe(0n);
    }
    await expectLedgerSound([]);
  });

  it('refuses a deleted merchant’s refund of a settled payment as any other', async () => {
    const merchant = await settledMerchant('Deleted');
    const paid = await payInUsdc(testbed, merchant.merchantId, 'evm', 500n);
    await settledAndSent(merchant.merchantId);
    const deleted = await call(testbed.server, `/v1/merchants/${merchant.merchantId}`, {
      method: 'DELETE',
      headers: { 'api-key': testbed.partner.apiKey },
    });
    expect(deleted.status, deleted.text).toBe(200);
    const collectorBefore = await usdcBalance(testbed, collector());
    const refused = await askRefund(merchant.merchantId, paid);
    expect([refused.status, expectErrorBody(refused).code]).toEqual([409, 'insufficient_balance']);
    expect(await refunds.runOnce()).toEqual({ driven: [], waiting: [] });
    expect(await usdcBalance(testbed, collector())).toBe(collectorBefore);
    await expectLedgerSound([merchant.merchantId]);
  });

  it('keeps two merchants of one partner apart: one’s balance never pays the other’s refund', async () => {
    const rich = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
    await payInUsdc(testbed, rich, 'evm', 5000n);
    const poor = await settledMerchant('Poor');
    const paid = await payInUsdc(testbed, poor.merchantId, 'evm', 100n);
    await settledAndSent(poor.merchantId);
    // The same key, the same partner, the same asset and collector: still refused.
    const refused = await askRefund(poor.merchantId, paid);
    expect([refused.status, refused.body.details?.shortfall?.value]).toEqual([409, units(100n).toString()]);
    // Naming the rich merchant cannot reach the poor one's payment either.
    const crossed = await askRefund(rich, paid);
    expect([crossed.status, expectErrorBody(crossed).code]).toEqual([404, 'not_found']);
    expect(await ledgerBalance(rich)).toBe(units(5000n));
    await expectLedgerSound([rich, poor.merchantId]);
  });
});
