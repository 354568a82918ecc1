import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { type GatewayTestbed, signTypedDataAsWallet, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { usdcBalance } from '../settlement/support.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { BASE_ACCOUNT, BASE_USDC, createMerchant, createPayment } from '../support/fixtures.ts';
import {
  call,
  type CallResult,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

describe('POST /v1/payments/{id}/cancel', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  const headers = () => ({ 'api-key': partner.apiKey, 'merchant-id': merchantId });
  const cancel = (paymentId: string) =>
    call(server, `/v1/payments/${paymentId}/cancel`, { method: 'POST', headers: headers() });
  const storedPayment = (paymentId: string) =>
    server.db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(() => server.close());

  describe('happy path', () => {
    it('cancels an unpaid payment once, naming it, the reason and the time; records the event; reads it cancelled', async () => {
      const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
      const cancelled = await cancel(paymentId);
      expect(cancelled.status, cancelled.text).toBe(200);
      const { updated_at } = await storedPayment(paymentId);
      expect(cancelled.body).toEqual({
        status: 'cancelled',
        isFinal: true,
        info: null,
        paymentId,
        cancelledReason: 'cancelled_by_merchant',
        cancelledAt: updated_at.toISOString(),
      });
      const again = await cancel(paymentId);
      expect([again.status, again.body]).toEqual([200, cancelled.body]);
      const item = await call(server, `/v1/payments/${paymentId}`, { headers: headers() });
      expect(item.body).toMatchObject({ status: 'cancelled', isTerminal: true });
      const events = await server.db
        .selectFrom('webhook_events')
        .select('type')
        .where('partner_id', '=', partner.partnerId)
        .where('body', 'like', `%${paymentId}%`)
        .execute();
      expect(events.map((event) => event.type).sort()).toEqual(['payment.cancelled', 'payment.created']);
    });

    it('answers a payment the buyer declined as it is, cancelled by the user', async () => {
      const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
      const declined = await call(server, `/v1/gateway/payment/${paymentId}/cancel`, {
        method: 'POST',
        headers: { 'api-key': partner.apiKey },
      });
      expect(declined.body).toMatchObject({ status: 'cancelled', cancelledReason: 'cancelled_by_user' });
      const cancelled = await cancel(paymentId);
      expect([cancelled.status, cancelled.body]).toEqual([200, declined.body]);
    });
  });

  describe('errors', () => {
    it('refuses a payment that is processing or final with 400 invalid_state, changing nothing', async () => {
      const transition = { db: server.db, chains: server.ctx.chains, baseUrl: server.url, now: new Date() };
      const { paymentId: processing } = await createPayment(server, partner.apiKey, merchantId);
      await changePaymentStatus(transition, processing, 'processing');
      const { paymentId: failed } = await createPayment(server, partner.apiKey, merchantId);
      await changePaymentStatus(transition, failed, 'processing');
      await changePaymentStatus(transition, failed, 'failed', { failure_code: 'reverted' });
      for (const [paymentId, status] of [
        [processing, 'processing'],
        [failed, 'failed'],
      ]) {
        const result = await cancel(paymentId as string);
        expect([result.status, expectErrorBody(result).code]).toEqual([400, 'invalid_state']);
        expect((await storedPayment(paymentId as string)).status).toBe(status);
      }
    });

    it('refuses a payment with an accepted confirmation even while it still reads requires_action', async () => {
      // As a confirmation is left when its payment is made processing only by its submission (markProcessing).
      const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
      const optionId = `opt_${paymentId}`;
      await server.db
        .insertInto('payment_options')
        .values({
          id: optionId,
          payment_id: paymentId,
          account: BASE_ACCOUNT,
          asset: BASE_USDC,
          network: 'eip155:8453',
          method: 'eip3009',
          amount: '10000000',
          quote_expires_at: null,
          actions: '[]',
          terms: '{}',
        })
        .execute();
      await server.db
        .insertInto('payment_confirmations')
        .values({
          payment_id: paymentId,
          option_id: optionId,
          results: '[]',
          terms: '{}',
          provider_name: null,
          provider_icon: null,
          submitted_at: null,
        })
        .execute();
      const refused = await cancel(paymentId);
      expect([refused.status, expectErrorBody(refused).code]).toEqual([400, 'invalid_state']);
      const declined = await call(server, `/v1/gateway/payment/${paymentId}/cancel`, {
        method: 'POST',
        headers: { 'api-key': partner.apiKey },
      });
      expect([declined.status, expectErrorBody(declined).code]).toEqual([400, 'invalid_state']);
      expect((await storedPayment(paymentId)).status).toBe('requires_action');
    });

    it('reports an unknown payment and another merchant’s payment as 404 payment_not_found', async () => {
      const other = await createMerchant(server, partner.apiKey);
      const { paymentId } = await createPayment(server, partner.apiKey, other.id);
      for (const id of [paymentId, 'pay_01JZZZZZZZZZZZZZZZZZZZZZZZ']) {
        const result = await cancel(id);
        expect([result.status, expectErrorBody(result).code]).toEqual([404, 'payment_not_found']);
      }
      expect((await storedPayment(paymentId)).status).toBe('requires_action');
    });
  });
});

runCommonRouteTests({
  name: 'POST /v1/payments/:id/cancel',
  scope: 'payments',
  ownedResource: true,
  request: async (server, partner) => {
    const merchant = await createMerchant(server, partner.apiKey);
    const { paymentId } = await createPayment(server, partner.apiKey, merchant.id);
    return { method: 'POST', path: `/v1/payments/${paymentId}/cancel`, headers: { 'merchant-id': merchant.id } };
  },
});

describe('a merchant cancel and a buyer confirm of one payment, on the devnet', () => {
  let bed: GatewayTestbed;
  /** A buyer of this file only, so its balance tells exactly what was paid. */
  const buyerKey = generatePrivateKey();
  let buyerAccount: string;

  beforeAll(async () => {
    bed = await startGatewayTestbed();
    await bed.devnet.fund({ evm: [privateKeyToAccount(buyerKey).address] });
    buyerAccount = `${bed.evmChain()}:${privateKeyToAccount(buyerKey).address}`;
  }, 180_000);
  afterAll(async () => {
    await bed?.close();
  });

  const merchantCancel = (paymentId: string) =>
    call(bed.server, `/v1/payments/${paymentId}/cancel`, {
      method: 'POST',
      headers: { 'api-key': bed.partner.apiKey, 'merchant-id': bed.merchantId },
    });

  /** A new payment and the buyer's signed USDC option for it, ready to confirm. */
  async function signedPayment() {
    const { paymentId } = await bed.newPayment();
    const options = await bed.gateway(paymentId, '/options', { accounts: [buyerAccount] });
    expect(options.status, options.text).toBe(200);
    const option = options.body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    const signature = await signTypedDataAsWallet(buyerKey, option.actions[0].data.params);
    const confirmBody = { optionId: option.id, results: [{ type: 'walletRpc', data: [signature] }] };
    return { paymentId, confirm: () => bed.gateway(paymentId, '/confirm', confirmBody) };
  }

  const relayedFor = (paymentId: string) =>
    bed.server.db.selectFrom('evm_transactions').select('id').where('payment_id', '=', paymentId).execute();
  const confirmationsOf = (paymentId: string) =>
    bed.server.db
      .selectFrom('payment_confirmations')
      .select('payment_id')
      .where('payment_id', '=', paymentId)
      .execute();

  it('refuses to cancel a payment whose confirmation was accepted, as the gateway cancel does', async () => {
    const { paymentId, confirm } = await signedPayment();
    const confirmed = await confirm();
    expect(confirmed.status, confirmed.text).toBe(200);
    const refused = await merchantCancel(paymentId);
    expect([refused.status, expectErrorBody(refused).code], refused.text).toEqual([400, 'invalid_state']);
    const declined = await bed.gateway(paymentId, '/cancel', {});
    expect([declined.status, expectErrorBody(declined).code]).toEqual([400, 'invalid_state']);
    expect(await bed.finalStatus(paymentId)).toMatchObject({ status: 'succeeded' });
  });

  it('fired together over sockets, many times: one of the two wins each time and the payment agrees with it', async () => {
    const balanceBefore = await usdcBalance(bed, buyerAccount);
    const rounds: { paymentId: string; confirmed: CallResult; cancelled: CallResult }[] = [];
    for (let round = 0; round < 18; round += 1) {
      const { paymentId, confirm } = await signedPayment();
      // From the cancel sent 10 ms before the confirm to 40 ms after it, so that each may arrive while the other
      // is being checked or recorded.
      const gapMs = (round % 6) * 10 - 10;
      const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(ms, 0)));
      const [confirmed, cancelled] = await Promise.all([
        after(-gapMs).then(confirm),
        after(gapMs).then(() => merchantCancel(paymentId)),
      ]);
      rounds.push({ paymentId, confirmed, cancelled });
    }

    let paid = 0;
    for (const { paymentId, confirmed, cancelled } of rounds) {
      const answers = `confirm ${confirmed.status} ${confirmed.text}\ncancel ${cancelled.status} ${cancelled.text}`;
      expect(
        [confirmed.status, cancelled.status].filter((status) => status === 200),
        answers,
      ).toHaveLength(1);
      const final = await bed.finalStatus(paymentId);
      if (cancelled.status === 200) {
        expect(cancelled.body, answers).toMatchObject({
          status: 'cancelled',
          paymentId,
          cancelledReason: 'cancelled_by_merchant',
        });
        expect([confirmed.status, expectErrorBody(confirmed).code], answers).toEqual([400, 'invalid_state']);
        expect(final.status).toBe('cancelled');
        expect(await confirmationsOf(paymentId)).toEqual([]);
        expect(await relayedFor(paymentId)).toEqual([]);
      } else {
        expect([cancelled.status, expectErrorBody(cancelled).code], answers).toEqual([400, 'invalid_state']);
        expect(['processing', 'succeeded'], answers).toContain(confirmed.body.status);
        expect(final.status).toBe('succeeded');
        expect(await relayedFor(paymentId)).toHaveLength(1);
        paid += 1;
      }
    }
    process.stdout.write(`confirm against merchant cancel: ${paid} paid, ${rounds.length - paid} cancelled\n`);
    // On chain too: the buyer paid 10 USDC for each payment that succeeded and nothing for the cancelled ones.
    expect(await usdcBalance(bed, buyerAccount)).toBe(balanceBefore - BigInt(paid) * 10_000_000n);
  }, 240_000);
});
