import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { inTransaction } from '../../src/db/database.ts';
import type { FinalTransfer } from '../../src/chains/transferOutcomes.ts';
import { paymentTransferOutcomes } from '../../src/gateway/transferOutcomes.ts';
import { auditUnattributed } from '../../src/ledger/audit.ts';
import { silentLogger } from '../../src/log.ts';
import { auditOfMerchant, ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { createMerchant } from '../support/fixtures.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';

const USDC = 'eip155:31337/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3';
const BUYER = 'eip155:31337:0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

/**
 * A gateway payment's transfer that the chain confirms after the payment closed unpaid (its submission gave up and
 * failed it): the buyer's money is in the collector, and must be the buyer's to get back or the merchant's to accept.
 */
describe("a payment's transfer that lands after the payment closed", () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let hashes = 0;

  const outcome = () =>
    paymentTransferOutcomes({
      chains: new ChainRegistry([]),
      baseUrl: () => server.url,
      clock: { now: () => new Date() },
      log: silentLogger,
    });
  const headers = () => ({ 'api-key': partner.apiKey, 'merchant-id': merchantId });
  const paymentOf = async (paymentId: string) =>
    (await call(server, `/v1/payments/${paymentId}`, { headers: headers() })).body;

  /** A failed gateway payment of 10 USDC, with its buyer known or not, and its transfer confirmed late. */
  async function landedLate(buyer: { account: string; provider: string } | null) {
    hashes += 1;
    const paymentId = `pay_late_${merchantId.slice(-8)}_${hashes}`;
    await server.db
      .insertInto('payments')
      .values({
        id: paymentId,
        partner_id: partner.partnerId,
        merchant_id: merchantId,
        reference_id: paymentId,
        fiat_currency: 'USD',
        fiat_value: '1000',
        expires_at: new Date(Date.now() + 600_000),
        status: 'failed',
        failure_code: 'transfer_not_mined',
        network: 'eip155:31337',
        token_asset: USDC,
        token_symbol: 'USDC',
        token_value: '10000000',
        buyer_account: buyer?.account ?? null,
        buyer_provider_name: buyer?.provider ?? null,
      })
      .execute();
    const landed: FinalTransfer = {
      chain: 'eip155:31337',
      purpose: 'eip3009_receive',
      reference: paymentId,
      status: 'confirmed',
      hash: `0x${createHash('sha256').update(paymentId).digest('hex')}`,
      nonce: '7',
      reason: null,
    };
    // Noticed twice (two processes, or a retry after a crash): recorded once.
    await inTransaction(server.db, (trx) => outcome()(trx, landed));
    await inTransaction(server.db, (trx) => outcome()(trx, landed));
    return { paymentId, hash: landed.hash as string };
  }

  const entriesOf = (entry: string) =>
    server.db
      .selectFrom('ledger_entries')
      .select(['account', 'amount'])
      .where('entry', '=', entry)
      .orderBy('account')
      .execute();

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
  });
  beforeEach(async () => {
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is the payment’s paid_late exception, owed to the buyer who confirmed it, once', async () => {
    const { paymentId, hash } = await landedLate({ account: BUYER, provider: 'Test Wallet' });

    const payment = await paymentOf(paymentId);
    expect(payment.status).toBe('failed');
    expect(payment.exceptions).toEqual([
      expect.objectContaining({
        type: 'paid_late',
        fromAccountCaip10: BUYER,
        transaction: { hash, networkId: '31337' },
        amount: expect.objectContaining({ unit: `caip19/${USDC}`, value: '10000000' }),
      }),
    ]);
    expect(await entriesOf(`late_transfer:${hash}`)).toEqual([
      { account: `buyers:${merchantId}`, amount: '-10000000' },
      { account: 'collector', amount: '10000000' },
    ]);
    expect(await ledgerBalanceOf(server.db, `buyers:${merchantId}`, USDC)).toBe(10_000_000n);
    expect((await auditUnattributed(server.db)).filter((line) => line.merchantId === merchantId)).toEqual([]);
    expect((await auditOfMerchant(server.db, merchantId)).differing).toEqual([]);
    const events = await server.db
      .selectFrom('webhook_events')
      .select('type')
      .where('payment_id', '=', paymentId)
      .where('type', '=', 'payment.paid_late')
      .execute();
    expect(events).toHaveLength(1);
  });

  it('accepted by the merchant, pays the payment out of what the buyer was owed, not twice into the collector', async () => {
    const { paymentId, hash } = await landedLate({ account: BUYER, provider: 'Test Wallet' });
    const [late] = (await paymentOf(paymentId)).exceptions;

    const accepted = await call(server, `/v1/payments/${paymentId}/exceptions/${late.id}/accept`, {
      method: 'POST',
      headers: headers(),
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({
      status: 'succeeded',
      buyer: { accountCaip10: BUYER, accountProviderName: 'Test Wallet' },
    });
    const paid = await server.db
      .selectFrom('payments')
      .select(['settlement_amount', 'fee_total'])
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect(await entriesOf(`payment:${paymentId}`)).toEqual(
      [
        { account: `buyers:${merchantId}`, amount: '10000000' },
        { account: 'fees', amount: `-${paid.fee_total}` },
        { account: `merchant:${merchantId}`, amount: `-${paid.settlement_amount}` },
      ].filter((line) => line.amount !== '-0'),
    );
    // The collector received the 10 USDC once: when the transfer landed.
    const collectorLines = await server.db
      .selectFrom('ledger_entries')
      .select('amount')
      .where('account', '=', 'collector')
      .where('entry', 'in', [`late_transfer:${hash}`, `payment:${paymentId}`])
      .execute();
    expect(collectorLines).toEqual([{ amount: '10000000' }]);
    expect(await ledgerBalanceOf(server.db, `buyers:${merchantId}`, USDC)).toBe(0n);
    expect((await auditOfMerchant(server.db, merchantId)).differing).toEqual([]);
  });

  it('stays unattributed for the operator when the payment never knew its buyer', async () => {
    const { paymentId, hash } = await landedLate(null);

    expect((await paymentOf(paymentId)).exceptions ?? []).toEqual([]);
    expect(await entriesOf(`late_transfer:${hash}`)).toEqual([
      { account: 'collector', amount: '10000000' },
      { account: `unattributed:${merchantId}`, amount: '-10000000' },
    ]);
    expect((await auditUnattributed(server.db)).filter((line) => line.merchantId === merchantId)).toEqual([
      { merchantId, asset: USDC, ledger: '10000000', records: '0', difference: '10000000' },
    ]);
  });
});
