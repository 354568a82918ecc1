import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/database.ts';
import { lockedOperatorFunding, OPERATOR, postFunding } from '../../src/ledger/ledger.ts';
import { PaymentSubmissions } from '../../src/gateway/paymentSubmissions.ts';
import { createApiKey } from '../../src/partners/partners.ts';
import { setFeeSchedule } from '../../src/settlement/feeSchedules.ts';
import { computeFees, parsePercentage } from '../../src/settlement/fees.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant } from '../support/fixtures.ts';
import { X402_DEPOSIT_LOG_INDEX } from '../../src/x402/x402Deposits.ts';
import { auditOfMerchant, ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { call, expectErrorBody, newPartner, startTestServer, type TestServer } from '../support/testServer.ts';
import { listedPayment, startX402Testbed, type X402Testbed } from './support.ts';

let testbed: X402Testbed;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The x402 payments of a payer, with their payments' status. */
function x402PaymentsOf(payer: string) {
  return testbed.service.server.db
    .selectFrom('x402_payments as x402')
    .innerJoin('payments', 'payments.id', 'x402.payment_id')
    .select(['payments.id', 'payments.status'])
    .where('x402.payer', '=', payer.toLowerCase())
    .execute();
}

describe('POST /v1/x402/settle', () => {
  beforeAll(async () => {
    testbed = await startX402Testbed();
    await setFeeSchedule(testbed.service.server.db, testbed.partner.partnerId, {
      percentage: '1.5',
      fixed: [{ currency: 'USD', amount: 1n }],
    });
  });

  describe('happy path', () => {
    it("settles exactly the requirements' amount to the merchant's address, swept to the collector: a succeeded payment of the merchant, source x402, with fees, ledger and events", async () => {
      const requirements = testbed.requirements('123456');
      const payload = await testbed.payload('alice', requirements);
      const buyer = testbed.buyerAddress('alice');
      const [buyerBefore, collectorBefore] = await Promise.all([
        testbed.usdcBalance(buyer),
        testbed.usdcBalance(testbed.collector),
      ]);

      const settled = await testbed.facilitator('settle', payload, requirements);
      expect(settled.status, settled.text).toBe(200);
      expect(settled.body).toEqual({
        success: true,
        payer: buyer,
        transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        network: testbed.network,
        amount: '123456',
        extra: { paymentId: expect.stringMatching(/^pay_/) },
      });
      const { paymentId } = settled.body.extra;
      expect(await testbed.usdcBalance(buyer)).toBe(buyerBefore - 123_456n);
      await expect
        .poll(() => testbed.usdcBalance(testbed.collector), { timeout: 30_000, interval: 200 })
        .toBe(collectorBefore + 123_456n);

      // 0.123456 USDC is 0.13 USD: the fiat amount rounds up to the cent, the token amount is exact.
      const fees = computeFees({
        tokenAmount: 123_456n,
        fiatAmount: 13n,
        fixedFiat: 1n,
        percentage: parsePercentage('1.5').value,
      });
      const { item, list } = await listedPayment(testbed, paymentId);
      expect(item).toMatchObject({
        paymentId,
        source: 'x402',
        status: 'succeeded',
        isTerminal: true,
        fiatAmount: { unit: 'iso4217/USD', value: '13' },
        tokenAmount: { unit: `caip19/${testbed.usdc.caip19}`, value: '123456' },
        buyer: { accountCaip10: `${testbed.network}:${buyer}` },
        transaction: { networkId: testbed.network.split(':')[1], hash: settled.body.transaction },
        fees: { total: { value: fees.total.toString() }, percentage: '1.5' },
        settlement: { settled: false },
      });
      // The merchant's first payment: the statistics count it, at its fiat amount.
      expect(list.stats).toMatchObject({
        totalTransactions: 1,
        totalCustomers: 1,
        totalRevenue: [{ amount: 0.13, currency: 'USD' }],
      });

      const db = testbed.service.server.db;
      const ledger = await db
        .selectFrom('ledger_entries')
        .select(['account', 'amount'])
        .where('entry', '=', `payment:${paymentId}`)
        .orderBy('account')
        .execute();
      // Held at the merchant's address for the buyer until the payment took it (`deposit:`), then the collector's.
      expect(ledger).toEqual([
        { account: `buyers:${testbed.merchantId}`, amount: '123456' },
        { account: 'fees', amount: (-fees.total).toString() },
        { account: `merchant:${testbed.merchantId}`, amount: (-fees.net).toString() },
      ]);
      const deposit = `deposit:${testbed.network}:${settled.body.transaction}:${X402_DEPOSIT_LOG_INDEX}`;
      const swept = `swept:${testbed.network}:${settled.body.transaction}:${X402_DEPOSIT_LOG_INDEX}`;
      await expect
        .poll(
          () =>
            db
              .selectFrom('ledger_entries')
              .select(['entry', 'account', 'amount'])
              .where('entry', 'in', [deposit, swept])
              .orderBy('entry')
              .orderBy('account')
              .execute(),
          { timeout: 30_000, interval: 200 },
        )
        .toEqual([
          { entry: deposit, account: `buyers:${testbed.merchantId}`, amount: '-123456' },
          { entry: deposit, account: 'deposit_addresses', amount: '123456' },
          { entry: swept, account: 'collector', amount: '123456' },
          { entry: swept, account: 'deposit_addresses', amount: '-123456' },
        ]);
      expect((await auditOfMerchant(db, testbed.merchantId)).differing).toEqual([]);

      const events = await db
        .selectFrom('webhook_events')
        .select('type')
        .where('body', 'like', `%${paymentId}%`)
        .orderBy('created_at')
        .execute();
      expect(events.map((event) => event.type)).toEqual(['payment.created', 'payment.processing', 'payment.succeeded']);
    });

    it('is listed beside the merchant API payments, and GET /v1/payments/{id} shows what was paid', async () => {
      const requirements = testbed.requirements('50001');
      const settled = await testbed.facilitator('settle', await testbed.payload('bob', requirements), requirements);
      expect(settled.body.success, settled.text).toBe(true);
      const detail = await call(testbed.service.server, `/v1/payments/${settled.body.extra.paymentId}`, {
        headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': testbed.merchantId },
      });
      expect(detail.status, detail.text).toBe(200);
      expect(detail.body).toMatchObject({
        source: 'x402',
        fiatAmount: { value: '6' },
        info: { txId: settled.body.transaction, optionAmount: { value: '50001' } },
      });
    });
  });

  describe('refusals, with x402 reasons; nothing is recorded or sent', () => {
    it('refuses an expired authorisation and one not valid yet', async () => {
      const requirements = testbed.requirements('1000');
      const buyer = testbed.buyerAddress('bob');
      const [before, paymentsBefore] = await Promise.all([testbed.usdcBalance(buyer), x402PaymentsOf(buyer)]);
      const expired = await testbed.customPayload('bob', requirements, { validBefore: String(nowSeconds() - 60) });
      const future = await testbed.customPayload('bob', requirements, { validAfter: String(nowSeconds() + 3600) });
      for (const [payload, reason] of [
        [expired, 'invalid_exact_evm_payload_authorization_valid_before'],
        [future, 'invalid_exact_evm_payload_authorization_valid_after'],
      ] as const) {
        const settled = await testbed.facilitator('settle', payload, requirements);
        expect(settled.status, settled.text).toBe(200);
        expect(settled.body).toMatchObject({
          success: false,
          errorReason: reason,
          payer: buyer,
          transaction: '',
          network: testbed.network,
        });
      }
      expect(await testbed.usdcBalance(buyer)).toBe(before);
      expect(await x402PaymentsOf(buyer)).toEqual(paymentsBefore);
    });

    it('answers 503 network_fee_unfunded to a verify and a settle while the operator has not funded the gas, and settles the same payload once it has', async () => {
      const db = testbed.service.server.db;
      const ether = testbed.service.chains.network(testbed.network)?.tokens.find((token) => token.method === 'native')
        ?.caip19 as string;
      // All the operator holds, read under its account's lock: a fee settled meanwhile changes it.
      const funded = await inTransaction(db, async (trx) => {
        const held = await lockedOperatorFunding(trx, ether);
        await postFunding(trx, `funding:withdrawn:${randomUUID()}`, ether, -held);
        return held;
      });
      expect(await ledgerBalanceOf(db, OPERATOR, ether)).toBe(0n);
      const refund = () => inTransaction(db, (trx) => postFunding(trx, `funding:again:${randomUUID()}`, ether, funded));
      try {
        const requirements = testbed.requirements('50000');
        const buyer = testbed.buyerAddress('bob');
        const [before, paymentsBefore] = await Promise.all([testbed.usdcBalance(buyer), x402PaymentsOf(buyer)]);
        const payload = await testbed.payload('bob', requirements);
        for (const operation of ['verify', 'settle'] as const) {
          const refused = await testbed.facilitator(operation, payload, requirements);
          expect(refused.status, refused.text).toBe(503);
          expect(expectErrorBody(refused)).toMatchObject({
            code: 'service_unavailable',
            details: { reason: 'network_fee_unfunded', asset: ether },
          });
        }
        expect(await testbed.usdcBalance(buyer)).toBe(before);
        expect(await x402PaymentsOf(buyer)).toEqual(paymentsBefore);

        await refund();
        const settled = await testbed.facilitator('settle', payload, requirements);
        expect(settled.body, settled.text).toMatchObject({ success: true, amount: '50000' });
        expect(await testbed.usdcBalance(buyer)).toBe(before - 50_000n);
      } finally {
        if ((await ledgerBalanceOf(db, OPERATOR, ether)) === 0n) await refund();
      }
    });

    it("refuses an authorisation of another amount than the requirements' and one to another recipient", async () => {
      const requirements = testbed.requirements('1000');
      const paymentsBefore = await x402PaymentsOf(testbed.buyerAddress('bob'));
      const more = await testbed.customPayload('bob', requirements, { value: '1001' });
      expect((await testbed.facilitator('settle', more, requirements)).body).toMatchObject({
        success: false,
        errorReason: 'invalid_exact_evm_payload_authorization_value_mismatch',
      });
      const elsewhere = await testbed.customPayload('bob', requirements, { to: testbed.buyerAddress('alice') });
      expect((await testbed.facilitator('settle', elsewhere, requirements)).body).toMatchObject({
        success: false,
        errorReason: 'invalid_exact_evm_recipient_mismatch',
      });
      expect(await x402PaymentsOf(testbed.buyerAddress('bob'))).toEqual(paymentsBefore);
    });
  });

  describe('one payload pays once', () => {
    it("answers a replay of a settled payload with invalid_exact_evm_nonce_already_used; another merchant's settle of it is a recipient mismatch", async () => {
      const requirements = testbed.requirements('30000');
      const payload = await testbed.payload('erin', requirements);
      const first = await testbed.facilitator('settle', payload, requirements);
      expect(first.body.success, first.text).toBe(true);
      const again = await testbed.facilitator('settle', payload, requirements);
      expect(again.body).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used' });

      // Another partner's merchant with the same payload learns nothing of the first payment: it pays another address.
      const { server } = testbed.service;
      const other = await newPartner(server.db, 'Other x402 partner');
      const otherMerchant = await createMerchant(server, other.apiKey);
      const elsewhere = await testbed.facilitator('settle', payload, requirements, {
        'api-key': other.apiKey,
        'merchant-id': otherMerchant.id,
      });
      expect(elsewhere.body).toEqual({
        success: false,
        errorReason: 'invalid_exact_evm_recipient_mismatch',
        errorMessage: expect.any(String),
        payer: testbed.buyerAddress('erin'),
        transaction: '',
        network: testbed.network,
      });
      expect(await x402PaymentsOf(testbed.buyerAddress('erin'))).toEqual([
        { id: first.body.extra.paymentId, status: 'succeeded' },
      ]);
    });

    it("pays once when settles of one payload reach two service processes at once, also through another merchant: one succeeds, one payment, one transfer, the other merchant's refused", async () => {
      const { server, chains, services, databaseUrl } = testbed.service;
      const second = await startTestServer({ databaseUrl, context: { chains, chainServices: services } });
      const submissions = PaymentSubmissions.start(second.ctx);
      second.ctx.submissions = submissions;
      const other = await newPartner(server.db, 'Racing partner');
      const otherMerchant = await createMerchant(server, other.apiKey);
      try {
        const requirements = testbed.requirements('40000');
        const payload = await testbed.payload('alice', requirements);
        const buyer = testbed.buyerAddress('alice');
        const before = await testbed.usdcBalance(buyer);
        const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements };
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, index) =>
            call(index % 2 === 0 ? server : second, '/v1/x402/settle', {
              method: 'POST',
              headers: index % 4 < 2 ? testbed.headers() : { 'api-key': other.apiKey, 'merchant-id': otherMerchant.id },
              body,
            }),
          ),
        );
        expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
        const succeeded = answers.filter((answer) => answer.body.success);
        expect(succeeded, JSON.stringify(answers.map((answer) => answer.body))).toHaveLength(1);
        // The merchant's own settles race for the payload; the other merchant's are refused whatever the race.
        answers.forEach((answer, index) => {
          if (index % 4 >= 2) expect(answer.body.errorReason).toBe('invalid_exact_evm_recipient_mismatch');
          else if (!answer.body.success) expect(answer.body.errorReason).toBe('invalid_exact_evm_nonce_already_used');
        });
        expect(await testbed.usdcBalance(buyer)).toBe(before - 40000n);
        const nonce = (payload.payload.authorization as { nonce: string }).nonce;
        const payments = await server.db
          .selectFrom('payments')
          .select('id')
          .where('reference_id', 'like', `%${nonce}`)
          .execute();
        expect(payments).toEqual([{ id: succeeded[0]?.body.extra.paymentId }]);
        const transfers = await server.db
          .selectFrom('evm_transactions')
          .select('id')
          .where('payment_id', '=', succeeded[0]?.body.extra.paymentId)
          .execute();
        expect(transfers).toHaveLength(1);
      } finally {
        await submissions.stop();
        await second.close();
      }
    });

    it('answers settlement_pending while the payment is not final; settling the same payload again gives its outcome, once', async () => {
      const { config } = testbed.service.server.ctx;
      const waitMs = config.x402SettleWaitMs;
      config.x402SettleWaitMs = 0;
      try {
        const requirements = testbed.requirements('60000');
        const payload = await testbed.payload('bob', requirements);
        const first = await testbed.facilitator('settle', payload, requirements);
        expect(first.body).toMatchObject({
          success: false,
          errorReason: 'settlement_pending',
          transaction: expect.stringMatching(/^(0x[0-9a-f]{64})?$/),
          extra: { paymentId: expect.stringMatching(/^pay_/) },
        });
        let outcome = first;
        for (let round = 0; round < 100 && outcome.body.errorReason === 'settlement_pending'; round += 1) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          outcome = await testbed.facilitator('settle', payload, requirements);
        }
        expect(outcome.body).toMatchObject({
          success: true,
          amount: '60000',
          extra: { paymentId: first.body.extra.paymentId },
        });
        const after = await testbed.facilitator('settle', payload, requirements);
        expect(after.body).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used' });
      } finally {
        config.x402SettleWaitMs = waitMs;
      }
    });
  });

  describe('a payment whose transfer fails', () => {
    it('answers the failure with x402’s reason: of two payloads that each spend most of the balance, one pays', async () => {
      const buyer = testbed.buyerAddress('erin');
      const before = await testbed.usdcBalance(buyer);
      const amount = ((before * 6n) / 10n).toString();
      const requirements = testbed.requirements(amount);
      const payloads = await Promise.all([
        testbed.payload('erin', requirements),
        testbed.payload('erin', requirements),
      ]);
      const answers = await Promise.all(
        payloads.map((payload) => testbed.facilitator('settle', payload, requirements)),
      );
      const [paid, refused] = answers[0]?.body.success ? answers : [answers[1], answers[0]];
      expect(paid?.body.success, JSON.stringify(answers.map((answer) => answer.body))).toBe(true);
      expect(refused?.body.success).toBe(false);
      // Both checked before either transfer was mined: the second is relayed and reverts; else its check refuses it.
      expect(['invalid_exact_evm_transaction_failed', 'invalid_exact_evm_insufficient_balance']).toContain(
        refused?.body.errorReason,
      );
      if (refused?.body.extra) {
        const failed = await testbed.service.server.db
          .selectFrom('payments')
          .select(['status', 'failure_code'])
          .where('id', '=', refused.body.extra.paymentId)
          .executeTakeFirstOrThrow();
        expect(failed).toEqual({ status: 'failed', failure_code: 'transaction_failed' });
        expect(refused.body.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      }
      expect(await testbed.usdcBalance(buyer)).toBe(before - BigInt(amount));
    });
  });

  describe('errors', () => {
    it("answers 401 without Merchant-Id and 404 for another partner's merchant, and 403 to a key without the x402 scope", async () => {
      const requirements = testbed.requirements('1000');
      const payload = await testbed.payload('alice', requirements);
      const missing = await testbed.facilitator('settle', payload, requirements, { 'api-key': testbed.x402Key });
      expect(missing.status).toBe(401);
      const { server } = testbed.service;
      const other = await newPartner(server.db, 'Another partner');
      const notTheirs = await testbed.facilitator(
        'settle',
        payload,
        requirements,
        testbed.headers(undefined, other.apiKey),
      );
      expect(notTheirs.status).toBe(404);
      const paymentsOnly = await createApiKey(server.db, testbed.partner.partnerId, ['payments']);
      const narrow = await testbed.facilitator(
        'settle',
        payload,
        requirements,
        testbed.headers(undefined, paymentsOnly.apiKey),
      );
      expect(narrow.status).toBe(403);
      expect(await x402PaymentsOf(testbed.buyerAddress('alice'))).not.toContainEqual(
        expect.objectContaining({ status: 'processing' }),
      );
    });
  });
});

afterAll(async () => {
  await testbed?.close();
});

/** The testbed's service; the testbed itself is closed once, after every check. */
const devnetServer = async (): Promise<TestServer> => ({ ...testbed.service.server, close: async () => {} });

runCommonRouteTests({
  name: 'POST /v1/x402/settle',
  scope: 'x402',
  ownedResource: true,
  server: devnetServer,
  // An authorisation of another amount than the requirements': refused before anything is recorded, so every
  // credential check can send it again.
  request: async (server, partner) => {
    const merchant = await createMerchant(server, partner.apiKey);
    const requirements = testbed.requirements('1000');
    const paymentPayload = await testbed.customPayload('alice', requirements, { value: '1' });
    return {
      method: 'POST',
      path: '/v1/x402/settle',
      headers: { 'merchant-id': merchant.id },
      body: { x402Version: 2, paymentPayload, paymentRequirements: requirements },
    };
  },
});
