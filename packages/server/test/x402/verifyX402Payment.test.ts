import type { PaymentRequirements } from '@x402/core/types';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMerchantDataThreshold } from '../../src/gateway/dataCollection/thresholdSettings.ts';
import { setFeeSchedule } from '../../src/settlement/feeSchedules.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant } from '../support/fixtures.ts';
import { call, expectErrorBody, type TestServer } from '../support/testServer.ts';
import { startX402Testbed, type X402Testbed } from './support.ts';

let testbed: X402Testbed;

beforeAll(async () => {
  testbed = await startX402Testbed();
});

afterAll(async () => {
  await testbed?.close();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('POST /v1/x402/verify', () => {
  async function verify(payload: Awaited<ReturnType<X402Testbed['payload']>>, requirements: PaymentRequirements) {
    const result = await testbed.facilitator('verify', payload, requirements);
    expect(result.status, result.text).toBe(200);
    return result.body;
  }

  describe('happy path', () => {
    it("accepts a payload x402's client signed for the requirements, and records nothing", async () => {
      const requirements = testbed.requirements('25000');
      const payload = await testbed.payload('alice', requirements);
      expect(await verify(payload, requirements)).toEqual({ isValid: true, payer: testbed.buyerAddress('alice') });
      const nonce = (payload.payload.authorization as { nonce: string }).nonce;
      const recorded = await testbed.service.server.db
        .selectFrom('x402_payments')
        .select('payment_id')
        .where('nonce', '=', nonce)
        .execute();
      expect(recorded).toEqual([]);
    });
  });

  describe('refusals, with x402 reasons', () => {
    const refusal = (reason: string) => expect.objectContaining({ isValid: false, invalidReason: reason });

    it('refuses another x402 version, scheme or network', async () => {
      const requirements = testbed.requirements('1000');
      const payload = await testbed.payload('alice', requirements);
      expect(await verify({ ...payload, x402Version: 1 }, requirements)).toEqual(refusal('invalid_x402_version'));
      expect(await verify(payload, { ...requirements, scheme: 'upto' })).toEqual(refusal('unsupported_scheme'));
      const mainnet = { ...requirements, network: 'eip155:1' as const };
      expect(await verify({ ...payload, accepted: mainnet }, mainnet)).toEqual(refusal('invalid_network'));
      expect(
        await verify({ ...payload, accepted: { ...requirements, network: 'eip155:31338' } }, requirements),
      ).toEqual(refusal('invalid_exact_evm_network_mismatch'));
    });

    it("refuses requirements this service cannot settle for the merchant: another token, a payTo that is not the merchant's (the collector's included), no or another EIP-712 domain", async () => {
      const requirements = testbed.requirements('1000');
      const payload = await testbed.payload('alice', requirements);
      const usdt = testbed.service.devnet.manifest.evm[0]?.tokens.find((token) => token.symbol === 'USDT');
      expect(await verify(payload, { ...requirements, asset: usdt?.address as string })).toEqual(
        refusal('invalid_payment_requirements'),
      );
      const stranger = privateKeyToAccount(generatePrivateKey()).address;
      for (const payTo of [stranger, testbed.collector])
        expect(await verify(payload, { ...requirements, payTo })).toEqual(
          refusal('invalid_exact_evm_recipient_mismatch'),
        );
      expect(await verify(payload, { ...requirements, extra: {} })).toEqual(
        refusal('invalid_exact_evm_missing_eip712_domain'),
      );
      expect(await verify(payload, { ...requirements, extra: { name: 'USDC', version: '2' } })).toEqual(
        refusal('invalid_exact_evm_token_name_mismatch'),
      );
      expect(await verify(payload, { ...requirements, extra: { ...requirements.extra, version: '1' } })).toEqual(
        refusal('invalid_exact_evm_token_version_mismatch'),
      );
    });

    it('refuses a payload that is not an EIP-3009 authorisation', async () => {
      const requirements = testbed.requirements('1000');
      const payload = await testbed.payload('alice', requirements);
      expect(await verify({ ...payload, payload: { permit2Authorization: {} } }, requirements)).toEqual(
        refusal('invalid_payload'),
      );
      for (const change of [{ nonce: '0x12' }, { validBefore: (2n ** 256n).toString() }, { value: '-1' }]) {
        const authorization = { ...(payload.payload.authorization as object), ...change };
        expect(await verify({ ...payload, payload: { ...payload.payload, authorization } }, requirements)).toEqual(
          refusal('invalid_payload'),
        );
      }
    });

    it("settles exactly the requirements' amount to the merchant's payTo: another value or recipient is refused", async () => {
      const requirements = testbed.requirements('1000');
      expect(await verify(await testbed.customPayload('alice', requirements, { value: '999' }), requirements)).toEqual(
        refusal('invalid_exact_evm_payload_authorization_value_mismatch'),
      );
      const elsewhere = privateKeyToAccount(generatePrivateKey()).address;
      expect(await verify(await testbed.customPayload('alice', requirements, { to: elsewhere }), requirements)).toEqual(
        refusal('invalid_exact_evm_recipient_mismatch'),
      );
    });

    it('refuses an expired authorisation, one about to expire, and one not valid yet', async () => {
      const requirements = testbed.requirements('1000');
      const expired = await testbed.customPayload('alice', requirements, { validBefore: String(nowSeconds() - 1) });
      expect(await verify(expired, requirements)).toEqual(
        refusal('invalid_exact_evm_payload_authorization_valid_before'),
      );
      const ending = await testbed.customPayload('alice', requirements, { validBefore: String(nowSeconds() + 3) });
      expect(await verify(ending, requirements)).toEqual(
        refusal('invalid_exact_evm_payload_authorization_valid_before'),
      );
      const future = await testbed.customPayload('alice', requirements, { validAfter: String(nowSeconds() + 3600) });
      expect(await verify(future, requirements)).toEqual(
        refusal('invalid_exact_evm_payload_authorization_valid_after'),
      );
    });

    it("refuses what the token would: another account's signature, a balance too small", async () => {
      const requirements = testbed.requirements('1000');
      const forged = await testbed.customPayload('bob', requirements, { from: testbed.buyerAddress('alice') });
      expect(await verify(forged, requirements)).toMatchObject({
        isValid: false,
        invalidReason: 'invalid_exact_evm_signature',
        payer: testbed.buyerAddress('alice'),
      });
      expect(await verify(await testbed.payload('dave', requirements), requirements)).toEqual(
        refusal('invalid_exact_evm_insufficient_balance'),
      );
    });

    it('refuses an authorisation settled before', async () => {
      const requirements = testbed.requirements('2000');
      const payload = await testbed.payload('erin', requirements);
      const settled = await testbed.facilitator('settle', payload, requirements);
      expect(settled.body.success, settled.text).toBe(true);
      expect(await verify(payload, requirements)).toEqual(refusal('invalid_exact_evm_nonce_already_used'));
    });

    it("refuses an amount that the partner's fees would eat, or above the merchant's buyer-data threshold", async () => {
      const { server } = testbed.service;
      const other = await createMerchant(server, testbed.partner.apiKey);
      const requirements = testbed.requirements('1000');
      const headers = testbed.headers(other.id);
      await setMerchantDataThreshold(server.db, other.id, {
        kind: 'threshold',
        threshold: { currency: 'USD', amount: 50n },
      });
      const above = testbed.requirements('600000', { payTo: await testbed.payToOf(headers) });
      const answer = await testbed.facilitator('verify', await testbed.payload('alice', above), above, headers);
      expect(answer.body).toEqual(refusal('invalid_payment_requirements'));
      expect(answer.body.invalidMessage).toContain('buyer-data threshold');
      await setFeeSchedule(server.db, testbed.partner.partnerId, {
        percentage: '0',
        fixed: [{ currency: 'USD', amount: 5n }],
      });
      try {
        const small = await testbed.facilitator('verify', await testbed.payload('alice', requirements), requirements);
        expect(small.body).toEqual(refusal('invalid_payment_requirements'));
        expect(small.body.invalidMessage).toContain('0.06 USD');
      } finally {
        await setFeeSchedule(server.db, testbed.partner.partnerId, { percentage: '0', fixed: [] });
      }
    });
  });

  describe('errors', () => {
    it('answers 401 without Merchant-Id, 404 for an unknown merchant, 403 for one not active, 400 for a malformed body', async () => {
      const requirements = testbed.requirements('1000');
      const payload = await testbed.payload('alice', requirements);
      const missing = await testbed.facilitator('verify', payload, requirements, { 'api-key': testbed.x402Key });
      expect([missing.status, expectErrorBody(missing).code]).toEqual([401, 'missing_merchant_id']);
      const unknown = await testbed.facilitator('verify', payload, requirements, testbed.headers('mrch_unknown'));
      expect([unknown.status, expectErrorBody(unknown).code]).toEqual([404, 'merchant_not_found']);
      const malformed = await call(testbed.service.server, '/v1/x402/verify', {
        method: 'POST',
        headers: testbed.headers(),
        body: { x402Version: 2, paymentPayload: payload },
      });
      expect([malformed.status, expectErrorBody(malformed).code]).toEqual([400, 'params_validation']);

      const suspended = await createMerchant(testbed.service.server, testbed.partner.apiKey);
      await testbed.service.server.db
        .updateTable('merchants')
        .set({ status: 'suspended' })
        .where('id', '=', suspended.id)
        .execute();
      await expect
        .poll(
          async () =>
            (await testbed.facilitator('verify', payload, requirements, testbed.headers(suspended.id))).status,
        )
        .toBe(403);
    });
  });
});

/** The testbed's service; the testbed itself is closed once, after every check. */
const devnetServer = async (): Promise<TestServer> => ({ ...testbed.service.server, close: async () => {} });

runCommonRouteTests({
  name: 'POST /v1/x402/verify',
  scope: 'x402',
  ownedResource: true,
  server: devnetServer,
  request: async (server, partner) => {
    const merchant = await createMerchant(server, partner.apiKey);
    const requirements = testbed.requirements('1000');
    const paymentPayload = await testbed.payload('alice', requirements);
    return {
      method: 'POST',
      path: '/v1/x402/verify',
      headers: { 'merchant-id': merchant.id },
      body: { x402Version: 2, paymentPayload, paymentRequirements: requirements },
    };
  },
});
