import { randomUUID } from 'node:crypto';
import { decodePaymentResponseHeader, x402HTTPClient } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { SettlementWorker } from '../../src/settlement/worker.ts';
import { call } from '../support/testServer.ts';
import { warningsInto } from '../support/warnings.ts';
import { buyerClient, type PaidApi, paymentRequiredOf, payingFetch, startPaidApi } from './paidApi.ts';
import { listedPayment, startX402Testbed, type X402Testbed } from './support.ts';

/** 0.001 USDC per request, x402's usual price. */
const PRICE = '1000';

/** The route's price in USDC, with the token's EIP-712 domain for x402's EIP-3009 client. */
const usdcPrice = (testbed: X402Testbed) => ({
  amount: PRICE,
  asset: testbed.usdc.address,
  extra: { name: testbed.usdc.name, version: testbed.usdc.version },
});

describe('an Express API charging per request with x402, through paygate', () => {
  let testbed: X402Testbed;
  let api: PaidApi;
  let secondApi: PaidApi;

  beforeAll(async () => {
    testbed = await startX402Testbed();
    api = await startPaidApi(testbed, usdcPrice(testbed));
    // The same merchant's API on a second server, as behind a load balancer.
    secondApi = await startPaidApi(testbed, usdcPrice(testbed));
  });

  afterAll(async () => {
    await api?.close();
    await secondApi?.close();
    await testbed?.close();
  });

  it('answers 402 with the requirements, serves the paid retry, and the payment is the merchant’s, settled to its destination', async () => {
    const unpaid = await fetch(`${api.url}/weather`);
    expect(unpaid.status).toBe(402);
    const required = paymentRequiredOf(unpaid);
    expect(required.accepts).toEqual([
      expect.objectContaining({
        scheme: 'exact',
        amount: PRICE,
        payTo: testbed.payTo,
        asset: testbed.usdc.address,
      }),
    ]);

    const buyer = testbed.buyerAddress('bob');
    const before = await testbed.usdcBalance(buyer);
    const { fetch: pay } = payingFetch(testbed, 'bob', testbed.usdc.address);
    const paid = await pay(`${api.url}/weather`);
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ weather: 'sunny', temperature: 21 });
    const receipt = decodePaymentResponseHeader(paid.headers.get('payment-response') ?? '');
    expect(receipt).toMatchObject({ success: true, network: testbed.network, payer: buyer });
    expect(await testbed.usdcBalance(buyer)).toBe(before - BigInt(PRICE));

    const paymentId = (receipt.extra as { paymentId: string }).paymentId;
    const { item } = await listedPayment(testbed, paymentId);
    expect(item).toMatchObject({
      source: 'x402',
      status: 'succeeded',
      // 0.001 USDC: the fiat amount rounds up to one cent; the token amount is exact.
      fiatAmount: { unit: 'iso4217/USD', value: '1' },
      tokenAmount: { unit: `caip19/${testbed.usdc.caip19}`, value: PRICE },
      buyer: { accountCaip10: `${testbed.network}:${buyer}` },
      transaction: { hash: receipt.transaction },
      settlement: { settled: false },
    });

    // The merchant's destination for USDC receives the payment, net of fees (none here), in a settlement batch.
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const added = await call(testbed.service.server, `/v1/merchants/${testbed.merchantId}/settlements/crypto`, {
      method: 'POST',
      headers: { 'api-key': testbed.partner.apiKey, 'idempotency-key': randomUUID() },
      body: { settlements: [{ asset: testbed.usdc.caip19, destination: `${testbed.network}:${destination}` }] },
    });
    expect(added.status, added.text).toBe(201);
    const problems: string[] = [];
    const worker = new SettlementWorker({
      db: testbed.service.server.db,
      chains: testbed.service.chains,
      services: testbed.service.services,
      clock: systemClock,
      baseUrl: () => testbed.service.server.url,
      minimumBatch: '0',
      log: warningsInto(problems),
    });
    const round = await worker.runOnce();
    expect(round.created).toHaveLength(1);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { item: settled } = await listedPayment(testbed, paymentId);
      if (settled.settlement.settled) {
        expect(settled.settlement).toMatchObject({ settled: true, amount: { value: PRICE } });
        break;
      }
      if (Date.now() > deadline) throw new Error(`payment ${paymentId} not settled: ${JSON.stringify(settled)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await testbed.usdcBalance(destination)).toBe(BigInt(PRICE));
    expect(problems).toEqual([]);
  });

  it('refuses a buyer whose balance does not cover the price with 402 and x402’s reason; nothing is recorded', async () => {
    const { fetch: pay } = payingFetch(testbed, 'dave', testbed.usdc.address);
    const refused = await pay(`${api.url}/weather`);
    expect(refused.status).toBe(402);
    expect(paymentRequiredOf(refused).error).toContain('invalid_exact_evm_insufficient_balance');
    const recorded = await testbed.service.server.db
      .selectFrom('x402_payments')
      .select('payment_id')
      .where('payer', '=', testbed.buyerAddress('dave').toLowerCase())
      .execute();
    expect(recorded).toEqual([]);
  });

  it('pays once for a replayed payment header: the replay is refused with 402, on the same server or another', async () => {
    const buyer = testbed.buyerAddress('alice');
    const before = await testbed.usdcBalance(buyer);
    const { fetch: pay, sent } = payingFetch(testbed, 'alice', testbed.usdc.address);
    expect((await pay(`${api.url}/weather`)).status).toBe(200);
    const header = sent.map((headers) => headers.get('payment-signature')).find(Boolean);
    expect(header).toBeTruthy();

    for (const server of [api, secondApi]) {
      const replayed = await fetch(`${server.url}/weather`, { headers: { 'payment-signature': header as string } });
      expect(replayed.status).toBe(402);
      expect(paymentRequiredOf(replayed).error).toContain('invalid_exact_evm_nonce_already_used');
    }
    expect(await testbed.usdcBalance(buyer)).toBe(before - BigInt(PRICE));
  });

  it('pays once when one payment header reaches two servers at once: one serves the resource, the other refuses', async () => {
    const buyer = testbed.buyerAddress('erin');
    const before = await testbed.usdcBalance(buyer);
    // The header x402's client makes for the route's 402, sent by hand to both servers at once.
    const client = new x402HTTPClient(buyerClient(testbed, 'erin', testbed.usdc.address));
    const payload = await client.createPaymentPayload(paymentRequiredOf(await fetch(`${api.url}/weather`)));
    const headers = client.encodePaymentSignatureHeader(payload);

    const answers = await Promise.all(
      [api, secondApi, api, secondApi].map((server) => fetch(`${server.url}/weather`, { headers })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 402, 402, 402]);
    expect(await testbed.usdcBalance(buyer)).toBe(before - BigInt(PRICE));
    const payments = await testbed.service.server.db
      .selectFrom('x402_payments')
      .select('payment_id')
      .where('payer', '=', buyer.toLowerCase())
      .execute();
    expect(payments).toHaveLength(1);
  });
});
