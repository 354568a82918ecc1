import type { Updateable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantsTable } from '../../src/db/schema.ts';
import { claimBatch } from '../../src/settlement/batches.ts';
import type { SettlementWorker } from '../../src/settlement/worker.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { createMerchant } from '../support/fixtures.ts';
import {
  addDestination,
  newEvmDestination,
  paymentItem,
  payInUsdc,
  usdcAssets,
  usdcBalance,
  settlementWorker,
} from './support.ts';

describe('settlement of a merchant that is not active', () => {
  let testbed: GatewayTestbed;
  let worker: SettlementWorker;
  const problems: string[] = [];

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
    worker = settlementWorker(testbed, problems);
  }, 180_000);

  afterAll(async () => {
    await testbed?.close();
  });

  const changeMerchant = (merchantId: string, changes: Updateable<MerchantsTable>) =>
    testbed.server.db.updateTable('merchants').set(changes).where('id', '=', merchantId).execute();

  const batchesOf = (merchantId: string) =>
    testbed.server.db
      .selectFrom('settlement_batches')
      .select(['id', 'status'])
      .where('merchant_id', '=', merchantId)
      .execute();

  const transfersOf = (batchIds: string[]) =>
    batchIds.length
      ? testbed.server.db
          .selectFrom('evm_transactions')
          .select('id')
          .where('purpose', '=', 'settlement')
          .where('payment_id', 'in', batchIds)
          .execute()
      : Promise.resolve([]);

  /** Settlement rounds until the merchant's batches are all confirmed by the network's follower. */
  async function settleMerchant(merchantId: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      await worker.runOnce();
      const batches = await batchesOf(merchantId);
      if (batches.length && batches.every((batch) => batch.status === 'confirmed')) return;
      if (Date.now() > deadline) throw new Error(`batches of ${merchantId} not final: ${JSON.stringify(batches)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** A merchant with an EVM USDC destination and one succeeded payment of 12.00 USD in USDC. */
  async function merchantOwedMoney() {
    const merchantId = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
    const destination = newEvmDestination(testbed);
    await addDestination(testbed, merchantId, usdcAssets(testbed).evm.caip19, destination);
    const paymentId = await payInUsdc(testbed, merchantId, 'evm', 1200n, 'bob');
    return { merchantId, destination, paymentId };
  }

  it.each(['inactive', 'suspended'] as const)(
    'batches and sends nothing while the merchant is %s, and settles it in full once it is active again',
    async (status) => {
      const { merchantId, destination, paymentId } = await merchantOwedMoney();
      await changeMerchant(merchantId, { status });
      await worker.runOnce();
      await worker.runOnce();
      expect(await batchesOf(merchantId)).toEqual([]);
      expect(await usdcBalance(testbed, destination)).toBe(0n);
      expect((await paymentItem(testbed, merchantId, paymentId)).settlement).toEqual({ settled: false });

      await changeMerchant(merchantId, { status: 'active' });
      await settleMerchant(merchantId);
      const settled = await paymentItem(testbed, merchantId, paymentId);
      expect(settled.settlement).toMatchObject({ settled: true, amount: { value: '12000000' } });
      expect(await usdcBalance(testbed, destination)).toBe(12_000_000n);
      expect(problems).toEqual([]);
    },
  );

  it('sends no transfer for a batch made before the merchant was suspended, until it is active again', async () => {
    const { merchantId, destination, paymentId } = await merchantOwedMoney();
    const claimed = await claimBatch(testbed.server.db, {
      merchantId,
      asset: usdcAssets(testbed).evm.caip19,
      network: testbed.evmChain(),
      held: 10n ** 18n,
      now: new Date(),
    });
    expect(claimed.kind).toBe('claimed');
    const batchId = claimed.kind === 'claimed' ? claimed.batchId : '';
    await changeMerchant(merchantId, { status: 'suspended' });
    await worker.runOnce();
    expect(await batchesOf(merchantId)).toEqual([{ id: batchId, status: 'claimed' }]);
    expect(await transfersOf([batchId])).toEqual([]);
    expect(await usdcBalance(testbed, destination)).toBe(0n);

    await changeMerchant(merchantId, { status: 'active' });
    await settleMerchant(merchantId);
    expect(await transfersOf([batchId])).toHaveLength(1);
    expect(await usdcBalance(testbed, destination)).toBe(12_000_000n);
    expect((await paymentItem(testbed, merchantId, paymentId)).settlement).toMatchObject({ settled: true });
  });

  it('pays a deleted merchant what it is owed, to its destination; a deleted merchant an operator suspended waits', async () => {
    const deleted = await merchantOwedMoney();
    const deletedAndSuspended = await merchantOwedMoney();
    await changeMerchant(deleted.merchantId, { deleted_at: new Date() });
    await changeMerchant(deletedAndSuspended.merchantId, { deleted_at: new Date(), status: 'suspended' });
    await settleMerchant(deleted.merchantId);
    expect(await usdcBalance(testbed, deleted.destination)).toBe(12_000_000n);
    const payment = await testbed.server.db
      .selectFrom('payments')
      .select(['settled_at', 'settlement_tx_hash'])
      .where('id', '=', deleted.paymentId)
      .executeTakeFirstOrThrow();
    expect(payment.settled_at).not.toBeNull();
    expect(payment.settlement_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await batchesOf(deletedAndSuspended.merchantId)).toEqual([]);
    expect(await usdcBalance(testbed, deletedAndSuspended.destination)).toBe(0n);
  });
});
