import { createPublicClient, type Hex, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { addDestination, newEvmDestination, payInUsdc, settlementWorker, usdcAssets } from '../settlement/support.ts';
import { createMerchant } from '../support/fixtures.ts';
import { call, expectErrorBody } from '../support/testServer.ts';

// The security and version checks of GET /v1/payments/{id} run with the status routes' (paymentStatus.test.ts).
describe('GET /v1/payments/{id} on the devnet', () => {
  let testbed: GatewayTestbed;
  const problems: string[] = [];

  const read = (paymentId: string, merchantId = testbed.merchantId) =>
    call(testbed.server, `/v1/payments/${paymentId}`, {
      headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': merchantId },
    });

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
  }, 180_000);
  afterAll(async () => {
    await testbed?.close();
  });

  describe('happy path', () => {
    it('has no info and no failureCode while the payment waits for the buyer', async () => {
      const { paymentId } = await testbed.newPayment();
      const result = await read(paymentId);
      expect(result.status, result.text).toBe(200);
      expect(result.body).toMatchObject({ paymentId, status: 'requires_action' });
      expect(result.body).not.toHaveProperty('info');
      expect(result.body).not.toHaveProperty('failureCode');
      expect(result.body).not.toHaveProperty('settlement');
    });

    it('shows what the buyer paid and the mined transaction, then the settlement transfer once settled', async () => {
      const merchantId = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
      const usdc = usdcAssets(testbed).evm;
      await addDestination(testbed, merchantId, usdc.caip19, newEvmDestination(testbed));
      const paymentId = await payInUsdc(testbed, merchantId, 'evm', 1234n);

      const paid = (await read(paymentId, merchantId)).body;
      expect(paid.status).toBe('succeeded');
      expect(paid.info).toEqual({
        optionAmount: {
          unit: `caip19/${usdc.caip19}`,
          value: '12340000',
          display: expect.objectContaining({ assetSymbol: 'USDC', decimals: 6 }),
        },
        txId: paid.transaction.hash,
      });
      const client = createPublicClient({ transport: http(testbed.devnet.manifest.evm[0]!.rpcUrl) });
      const receipt = await client.getTransactionReceipt({ hash: paid.info.txId as Hex });
      expect(receipt.status).toBe('success');
      expect(paid.settlement).toEqual({ settled: false });
      expect(paid).not.toHaveProperty('failureCode');

      const worker = settlementWorker(testbed, problems);
      const round = await worker.runOnce();
      expect(round.created).toHaveLength(1);
      const deadline = Date.now() + 30_000;
      let settled = (await read(paymentId, merchantId)).body;
      while (!settled.settlement.settled && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        settled = (await read(paymentId, merchantId)).body;
      }
      expect(problems).toEqual([]);
      expect(settled.settlement).toEqual({
        settled: true,
        amount: expect.objectContaining({ unit: `caip19/${usdc.caip19}`, value: '12340000' }),
        txHash: expect.stringMatching(/^0x[0-9a-fA-F]{64}$/),
        successful: { txId: settled.settlement.txHash, amount: settled.settlement.amount },
      });
      const transfer = await client.getTransactionReceipt({ hash: settled.settlement.successful.txId as Hex });
      expect(transfer.status).toBe('success');
      expect(settled.info).toEqual(paid.info);
    });

    it('answers a declined payment cancelled, as its status and the gateway do, and says why a failed payment failed', async () => {
      const declined = await testbed.newPayment();
      const cancel = await testbed.gateway(declined.paymentId, '/cancel', {});
      expect(cancel.status, cancel.text).toBe(200);
      const declinedItem = (await read(declined.paymentId)).body;
      expect(declinedItem).toMatchObject({ status: 'cancelled', isTerminal: true });
      expect(declinedItem).not.toHaveProperty('info');
      expect(declinedItem).not.toHaveProperty('failureCode');
      const status = await call(testbed.server, `/v1/payments/${declined.paymentId}/status`, {
        headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': testbed.merchantId },
      });
      expect(status.body.status).toBe('cancelled');
      const gateway = await testbed.gateway(declined.paymentId, '/status');
      expect(gateway.body.status).toBe('cancelled');

      const reverted = await testbed.newPayment();
      const transition = {
        db: testbed.server.db,
        chains: testbed.chains,
        baseUrl: testbed.server.url,
        now: new Date(),
      };
      await changePaymentStatus(transition, reverted.paymentId, 'processing');
      expect((await read(reverted.paymentId)).body).not.toHaveProperty('failureCode');
      await changePaymentStatus(transition, reverted.paymentId, 'failed', { failure_code: 'transaction_failed' });
      expect((await read(reverted.paymentId)).body).toMatchObject({
        status: 'failed',
        failureCode: 'transaction_failed',
      });
    });
  });

  describe('errors', () => {
    it("reports an unknown payment and another merchant's payment as 404 payment_not_found", async () => {
      const otherMerchant = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
      const theirs = await testbed.newPayment();
      for (const [paymentId, merchantId] of [
        ['pay_unknown', testbed.merchantId],
        [theirs.paymentId, otherMerchant],
      ] as const) {
        const result = await read(paymentId, merchantId);
        expect([result.status, expectErrorBody(result).code]).toEqual([404, 'payment_not_found']);
      }
    });

    it('needs Merchant-Id', async () => {
      const { paymentId } = await testbed.newPayment();
      const result = await call(testbed.server, `/v1/payments/${paymentId}`, {
        headers: { 'api-key': testbed.partner.apiKey },
      });
      expect([result.status, expectErrorBody(result).code]).toEqual([401, 'missing_merchant_id']);
    });
  });
});
