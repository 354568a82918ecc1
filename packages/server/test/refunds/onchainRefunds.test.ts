import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefundWorker } from '../../src/refunds/refundWorker.ts';
import { auditMerchantBalances } from '../../src/ledger/audit.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { payInUsdc, usdcAssets, usdcBalance } from '../settlement/support.ts';
import { refundEventTypes } from './support.ts';
import { call, expectErrorBody } from '../support/testServer.ts';
import { warningsInto } from '../support/warnings.ts';

const usd = (value: string) => ({ unit: 'iso4217/USD', value });

describe('refunds sent back on chain', () => {
  let testbed: GatewayTestbed;
  const problems: string[] = [];
  const newWorker = () =>
    new RefundWorker({
      db: testbed.server.db,
      chains: testbed.chains,
      services: testbed.services,
      clock: testbed.clock,
      log: warningsInto(problems),
    });

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
  }, 180_000);
  afterAll(() => testbed?.close());

  const refund = (body: Record<string, unknown>) =>
    call(testbed.server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': testbed.merchantId },
      body,
    });

  /** The refund once it is no longer pending, as the API shows it. */
  async function finalRefund(refundId: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const read = await call(testbed.server, `/v1/refunds/${refundId}`, {
        headers: { 'api-key': testbed.partner.apiKey },
      });
      expect(read.status, read.text).toBe(200);
      if (read.body.status !== 'pending') return read.body;
      if (Date.now() > deadline) throw new Error(`refund ${refundId} still pending`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('sends part of an EVM USDC payment back to the paying account, once, and says so when it lands', async () => {
    const buyer = testbed.evmAccount('alice');
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'evm', 1234n);
    const before = await usdcBalance(testbed, buyer);
    const made = await refund({ paymentId, amount: usd('500'), send: true });
    expect(made.status, made.text).toBe(200);
    expect(made.body).toMatchObject({
      method: 'onchain',
      status: 'pending',
      destination: buyer,
      amount: usd('500'),
      tokenAmount: { unit: `caip19/${usdcAssets(testbed).evm.caip19}`, value: '5000000' },
      txHash: null,
    });
    const [first, second] = await Promise.all([newWorker().runOnce(), newWorker().runOnce()]);
    expect([...first.driven, ...second.driven]).toContain(made.body.id);
    const done = await finalRefund(made.body.id);
    expect(done.status).toBe('succeeded');
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await usdcBalance(testbed, buyer)) - before).toBe(5_000_000n);
    const journaled = await testbed.server.db
      .selectFrom('evm_transactions')
      .select('id')
      .where('purpose', '=', 'refund')
      .where('payment_id', '=', made.body.id)
      .execute();
    expect(journaled).toHaveLength(1);
    expect(await refundEventTypes(testbed, made.body.id)).toEqual(['refund.created', 'refund.succeeded']);
    await newWorker().runOnce();
    expect((await usdcBalance(testbed, buyer)) - before).toBe(5_000_000n);
    // The ledger took the refund from what the merchant is owed when it was made, and has the collector paying the
    // buyer back once the transfer was final, as its records say.
    const asset = usdcAssets(testbed).evm.caip19;
    const lines = (entry: string) =>
      testbed.server.db
        .selectFrom('ledger_entries')
        .select(['account', 'asset', 'amount'])
        .where('entry', '=', entry)
        .orderBy('account')
        .execute();
    expect(await lines(`refund:${made.body.id}`)).toEqual([
      { account: `merchant:${testbed.merchantId}`, asset, amount: '5000000' },
      { account: 'payouts_in_flight', asset, amount: '-5000000' },
    ]);
    expect(await lines(`refund_sent:${made.body.id}`)).toEqual([
      { account: 'collector', asset, amount: '-5000000' },
      { account: 'payouts_in_flight', asset, amount: '5000000' },
    ]);
    const audited = (await auditMerchantBalances(testbed.server.db)).filter(
      (line) => line.merchantId === testbed.merchantId,
    );
    expect(audited.length).toBeGreaterThan(0);
    expect(audited.map((line) => line.difference)).toEqual(audited.map(() => '0'));
  });

  it('sends a whole Solana USDC payment back, the token amount paid to the unit', async () => {
    const buyer = testbed.solanaAccount('bob');
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'solana', 777n, 'bob');
    const before = await usdcBalance(testbed, buyer);
    const made = await refund({ paymentId, send: true });
    expect([made.status, made.body.destination, made.body.tokenAmount.value]).toEqual([200, buyer, '7770000']);
    await newWorker().runOnce();
    const done = await finalRefund(made.body.id);
    expect(done.status).toBe('succeeded');
    expect(typeof done.txHash).toBe('string');
    expect((await usdcBalance(testbed, buyer)) - before).toBe(7_770_000n);
    const again = await refund({ paymentId, send: true });
    expect([again.status, expectErrorBody(again).code]).toEqual([409, 'already_refunded']);
  });

  it('waits while the collector holds too little beside the settlements in flight, then sends', async () => {
    const buyer = testbed.evmAccount('alice');
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'evm', 300n);
    const asset = usdcAssets(testbed).evm.caip19;
    const held = await usdcBalance(testbed, `${testbed.evmChain()}:${testbed.services.evm.collector}`);
    // A batch in flight that counts on everything the collector holds.
    await testbed.server.db
      .insertInto('settlement_batches')
      .values({
        id: 'stb_refund_test_hold',
        merchant_id: testbed.merchantId,
        asset,
        network: testbed.evmChain(),
        destination: buyer,
        amount: held,
        status: 'claimed',
      })
      .execute();
    const made = await refund({ paymentId, send: true });
    const round = await newWorker().runOnce();
    expect(round.waiting).toContain(made.body.id);
    expect(problems.some((problem) => problem.includes(`refund ${made.body.id} needs`))).toBe(true);
    const before = await usdcBalance(testbed, buyer);
    await testbed.server.db
      .updateTable('settlement_batches')
      .set({ status: 'failed' })
      .where('id', '=', 'stb_refund_test_hold')
      .execute();
    expect((await newWorker().runOnce()).driven).toContain(made.body.id);
    expect((await finalRefund(made.body.id)).status).toBe('succeeded');
    expect((await usdcBalance(testbed, buyer)) - before).toBe(3_000_000n);
  });

  it('refuses to send back a payment the service cannot pay on chain', async () => {
    const { paymentId } = await testbed.newPayment({ amount: usd('100') });
    await testbed.server.db
      .updateTable('payments')
      .set({ status: 'succeeded', token_value: '1000000', token_asset: 'eip155:999999/erc20:0x1' })
      .where('id', '=', paymentId)
      .execute();
    const made = await refund({ paymentId, send: true });
    expect([made.status, expectErrorBody(made).code]).toEqual([400, 'refund_not_sendable']);
    const recorded = await refund({ paymentId });
    expect([recorded.status, recorded.body.method]).toEqual([200, 'recorded']);
  });
});
