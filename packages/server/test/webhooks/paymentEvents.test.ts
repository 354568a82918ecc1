import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { LISTED_NETWORKS } from '../dashboard/support/dashboardSession.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { BASE_ACCOUNT, BASE_USDC, createMerchant, createPayment, transitionsOf } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

describe('GET /v1/payments/{id}/events: a payment’s timeline with its webhook deliveries', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let endpointId: string;

  const transition = transitionsOf(() => server);
  const eventsOf = (paymentId: string, headers: Record<string, string> = {}) =>
    call(server, `/v1/payments/${paymentId}/events`, {
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId, ...headers },
    });

  /** A payment paid in USDC on Base, as the chain follower would write it. */
  async function paidPayment(referenceId: string): Promise<string> {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId, { referenceId });
    await changePaymentStatus(transition, paymentId, 'processing', {
      network: 'eip155:8453',
      token_asset: BASE_USDC,
      token_symbol: 'USDC',
      token_value: '10000000',
      tx_hash: `0x${randomBytes(32).toString('hex')}`,
      buyer_account: BASE_ACCOUNT,
    });
    await changePaymentStatus(transition, paymentId, 'succeeded');
    return paymentId;
  }

  beforeAll(async () => {
    server = await startTestServer({ context: { chains: new ChainRegistry(LISTED_NETWORKS) } });
    partner = await newPartner(server.db, 'Timeline partner');
    merchantId = (await createMerchant(server, partner.apiKey)).id;
    const endpoint = await call(server, '/v1/webhooks', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { url: 'https://hooks.example.com/timeline', events: ['payment.created', 'refund.succeeded'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    endpointId = endpoint.body.webhook.id;
  });
  afterAll(() => server?.close());

  describe('happy path', () => {
    it("lists the payment's events and its refunds' in order, each with its deliveries to subscribed endpoints", async () => {
      const paymentId = await paidPayment('timeline-1');
      // Another payment's events are not this one's.
      await paidPayment('timeline-2');
      const refund = await call(server, '/v1/refunds', {
        method: 'POST',
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId, 'idempotency-key': randomUUID() },
        body: { paymentId, amount: { unit: 'iso4217/USD', value: '100' } },
      });
      expect(refund.status, refund.text).toBe(200);

      const answer = await eventsOf(paymentId);
      expect(answer.status, answer.text).toBe(200);
      const events = answer.body.data as { id: string; type: string; deliveries: unknown[] }[];
      expect(events.map((event) => event.type)).toEqual([
        'payment.created',
        'payment.processing',
        'payment.succeeded',
        'refund.created',
        'refund.succeeded',
      ]);
      const stored = await server.db
        .selectFrom('webhook_events')
        .select(['id', 'type'])
        .where('partner_id', '=', partner.partnerId)
        .where('body', 'like', `%${paymentId}%`)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      expect(events.map((event) => event.id)).toEqual(stored.map((event) => event.id));
      const delivered = (type: string) => events.find((event) => event.type === type)!.deliveries;
      expect(delivered('payment.created')).toEqual([
        {
          deliveryId: expect.any(String),
          endpointId,
          url: 'https://hooks.example.com/timeline',
          status: 'pending',
          attempts: 0,
          redelivery: false,
          completedAt: null,
        },
      ]);
      expect(delivered('refund.succeeded')).toHaveLength(1);
      expect(delivered('payment.succeeded')).toEqual([]);

      // A redelivery is one more delivery of the same event.
      const created = events[0]!.id;
      const again = await call(server, `/v1/events/${created}/redeliver`, {
        method: 'POST',
        headers: { 'api-key': partner.apiKey },
        body: { endpointId },
      });
      expect(again.status, again.text).toBeLessThan(300);
      const after = (await eventsOf(paymentId)).body.data[0].deliveries as { redelivery: boolean }[];
      expect(after.map((delivery) => delivery.redelivery)).toEqual([false, true]);
    });

    it('answers an empty timeline for a payment whose events are all of another kind', async () => {
      const { paymentId } = await createPayment(server, partner.apiKey, merchantId, { referenceId: 'timeline-3' });
      const answer = await eventsOf(paymentId);
      expect(answer.body.data.map((event: { type: string }) => event.type)).toEqual(['payment.created']);
    });
  });

  describe('errors', () => {
    it('answers 404 for an unknown payment and 401 without Merchant-Id, as the payment itself does', async () => {
      const unknown = await eventsOf('pay_01HZZZZZZZZZZZZZZZZZZZZZZZ');
      expect([unknown.status, expectErrorBody(unknown).code]).toEqual([404, 'payment_not_found']);
      const withoutMerchant = await call(server, `/v1/payments/pay_01HZZZZZZZZZZZZZZZZZZZZZZZ/events`, {
        headers: { 'api-key': partner.apiKey },
      });
      expect([withoutMerchant.status, expectErrorBody(withoutMerchant).code]).toEqual([401, 'missing_merchant_id']);
    });
  });

  describe('security', () => {
    it("answers 404 for another partner's payment, through its own merchant or this one's", async () => {
      const other = await newPartner(server.db, 'Other partner');
      const otherMerchant = (await createMerchant(server, other.apiKey)).id;
      const { paymentId } = await createPayment(server, other.apiKey, otherMerchant, { referenceId: 'theirs-1' });
      const viaTheirs = await eventsOf(paymentId, { 'merchant-id': otherMerchant });
      expect([viaTheirs.status, expectErrorBody(viaTheirs).code]).toEqual([404, 'merchant_not_found']);
      const viaOurs = await eventsOf(paymentId);
      expect([viaOurs.status, expectErrorBody(viaOurs).code]).toEqual([404, 'payment_not_found']);
    });
  });
});

runCommonRouteTests({
  name: 'GET /v1/payments/{id}/events',
  scope: 'payments',
  ownedResource: true,
  request: async (server, partner) => {
    const merchantId = (await createMerchant(server, partner.apiKey)).id;
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId, { referenceId: 'common-1' });
    return { method: 'GET', path: `/v1/payments/${paymentId}/events`, headers: { 'merchant-id': merchantId } };
  },
});
