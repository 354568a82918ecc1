import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { type Address, isAddressEqual } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBalances } from '../../src/chains/evm/index.ts';
import { auditCollector, auditDepositAddresses, finalReadPoints, readAuditedLedger } from '../../src/ledger/audit.ts';
import { createApiKey } from '../../src/partners/partners.ts';
import { payoutSenders } from '../../src/payouts/index.ts';
import { systemClock } from '../../src/clock.ts';
import { auditOfMerchant, ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { createMerchant } from '../support/fixtures.ts';
import { newPartner } from '../support/testServer.ts';
import { startX402Testbed, type X402Testbed } from './support.ts';

let testbed: X402Testbed;
/** Merchant B: another partner's merchant with an x402 key of its own, which would take A's buyers' payloads. */
let other: { merchantId: string; headers: Record<string, string> };

/** Payments of the merchant, with their status. */
function paymentsOf(merchantId: string) {
  return testbed.service.server.db
    .selectFrom('payments')
    .select(['id', 'status'])
    .where('merchant_id', '=', merchantId)
    .execute();
}

/** The ledger and the chain, read as `paygate audit` reads them, for the assets the test moved. */
async function auditedLines(assets: string[]) {
  const { server, chains, services } = testbed.service;
  const clients = services.evm.clients;
  const readPoints = finalReadPoints((network) => clients.for(network));
  const ledger = await readAuditedLedger(server.db);
  const senders = payoutSenders({ db: server.db, chains, services, clock: systemClock });
  return [
    ...(await auditCollector(ledger, chains, senders, readPoints)),
    ...(await auditDepositAddresses(
      ledger,
      chains,
      (network, owners, tokens, blockNumber) => readBalances(clients.for(network), owners, tokens, blockNumber),
      readPoints,
    )),
  ].filter((line) => assets.includes(line.asset));
}

beforeAll(async () => {
  testbed = await startX402Testbed();
  const { server } = testbed.service;
  const partner = await newPartner(server.db, 'Other x402 partner');
  const { apiKey } = await createApiKey(server.db, partner.partnerId, ['x402']);
  const merchantId = (await createMerchant(server, partner.apiKey)).id;
  other = { merchantId, headers: testbed.headers(merchantId, apiKey) };
});

afterAll(async () => {
  await testbed?.close();
});

describe("x402 payTo: each merchant's own address, named by the buyer's signature", () => {
  it('gives each merchant a payTo of its own on EVM networks, not the collector, the same on every call', async () => {
    const payToA = await testbed.payToOf(testbed.headers());
    const payToB = await testbed.payToOf(other.headers);
    expect(isAddressEqual(payToA, payToB)).toBe(false);
    expect(isAddressEqual(payToA, testbed.collector)).toBe(false);
    expect(isAddressEqual(payToB, testbed.collector)).toBe(false);
    expect(await testbed.payToOf(testbed.headers())).toBe(payToA);
  });

  const kinds = [
    {
      kind: 'EIP-3009',
      reason: 'invalid_exact_evm_recipient_mismatch',
      requirements: (payTo: Address) => testbed.requirements('250000', { payTo }),
      payload: (requirements: PaymentRequirements) => testbed.payload('alice', requirements),
      token: () => testbed.usdc,
    },
    {
      kind: 'Permit2',
      reason: 'invalid_permit2_recipient_mismatch',
      requirements: (payTo: Address) => testbed.permit2Requirements('250000', { payTo }),
      payload: (requirements: PaymentRequirements) => testbed.customPermit2Payload('alice', requirements, {}),
      token: () => testbed.usdt,
    },
  ];

  it.each(kinds)(
    "refuses a $kind payload signed for merchant A when merchant B verifies or settles it, recording nothing; A's own settle pays A, and the sweep brings it to the collector",
    async ({ reason, requirements: requirementsFor, payload: payloadFor, token: tokenOf }) => {
      const token = tokenOf();
      const payToA = await testbed.payToOf(testbed.headers());
      const requirements = requirementsFor(payToA);
      const payload: PaymentPayload = await payloadFor(requirements);
      const buyer = testbed.buyerAddress('alice');
      const buyerBefore = await testbed.tokenBalance(token.address, buyer);
      const paymentsOfB = await paymentsOf(other.merchantId);

      // B's resource server passes A's payload on, with A's requirements or with its own payTo in them.
      for (const asked of [requirements, { ...requirements, payTo: await testbed.payToOf(other.headers) }]) {
        const verified = await testbed.facilitator('verify', payload, asked, other.headers);
        expect(verified.status, verified.text).toBe(200);
        expect(verified.body).toMatchObject({ isValid: false, invalidReason: reason, payer: buyer });
        const settled = await testbed.facilitator('settle', payload, asked, other.headers);
        expect(settled.status, settled.text).toBe(200);
        expect(settled.body).toMatchObject({ success: false, errorReason: reason, transaction: '' });
      }
      expect(await paymentsOf(other.merchantId)).toEqual(paymentsOfB);
      expect(await testbed.tokenBalance(token.address, buyer)).toBe(buyerBefore);

      // A's own settle of the same payload is the payment.
      const collectorBefore = await testbed.tokenBalance(token.address, testbed.collector);
      const settled = await testbed.facilitator('settle', payload, requirements);
      expect(settled.body, settled.text).toMatchObject({ success: true, amount: '250000' });
      const { paymentId } = settled.body.extra;
      expect(await testbed.tokenBalance(token.address, buyer)).toBe(buyerBefore - 250_000n);
      const db = testbed.service.server.db;
      const credited = await db
        .selectFrom('payments')
        .select(['merchant_id', 'status', 'settlement_amount'])
        .where('id', '=', paymentId)
        .executeTakeFirstOrThrow();
      expect(credited).toMatchObject({ merchant_id: testbed.merchantId, status: 'succeeded' });
      expect(await ledgerBalanceOf(db, `merchant:${testbed.merchantId}`, token.caip19)).toBeGreaterThanOrEqual(
        BigInt(credited.settlement_amount ?? '0'),
      );
      expect(await ledgerBalanceOf(db, `merchant:${other.merchantId}`, token.caip19)).toBe(0n);

      // The merchant's address is swept to the collector, and the ledger says where the money is at every step.
      await expect
        .poll(() => testbed.tokenBalance(token.address, testbed.collector), { timeout: 30_000, interval: 200 })
        .toBe(collectorBefore + 250_000n);
      expect(await testbed.tokenBalance(token.address, payToA)).toBe(0n);
      await expect
        .poll(
          async () =>
            (await auditedLines([token.caip19])).filter((line) => line.difference !== '0').map((line) => line.asset),
          { timeout: 30_000, interval: 200 },
        )
        .toEqual([]);
      expect((await auditOfMerchant(db, testbed.merchantId)).differing).toEqual([]);
      expect((await auditOfMerchant(db, other.merchantId)).differing).toEqual([]);
    },
  );
});
