import type { Devnet } from '@paygate/devnet';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositAddress } from '../../src/chains/evm/deposits/addresses.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { expirePaymentNow } from '../support/expirePaymentNow.ts';
import { devnetPlainWallet } from '../support/devnetPlainWallet.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, expectErrorBody, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';
import { auditOfMerchant } from '../support/ledgerAudit.ts';

/**
 * A merchant accepts a transfer that arrived after its payment closed: on the devnet, a buyer pays a cancelled or
 * expired payment's deposit address, and the merchant takes it as the payment instead of sending it back.
 */
describe('POST /v1/payments/{id}/exceptions/{exceptionId}/accept, on the devnet', () => {
  let service: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  const { chain, token, buyer, send } = devnetPlainWallet(() => devnet);
  const usdc = () => token('USDC');
  const collector = () => privateKeyToAccount(service.keys.evmPrivateKey).address;
  const headers = () => ({ 'api-key': partner.apiKey, 'merchant-id': merchantId });
  const paymentOf = async (paymentId: string) =>
    (await call(server, `/v1/payments/${paymentId}`, { headers: headers() })).body;
  const accept = (paymentId: string, exceptionId: string, requestHeaders = headers()) =>
    call(server, `/v1/payments/${paymentId}/exceptions/${exceptionId}/accept`, {
      method: 'POST',
      headers: requestHeaders,
    });
  const expectRefused = async (result: Awaited<ReturnType<typeof accept>>, status: number, code: string) =>
    expect({ status: result.status, code: expectErrorBody(result).code }, result.text).toEqual({ status, code });

  /** A payment whose deposit address asks 10 USDC, closed by `close`, then paid `amount` late; its exception. */
  async function paidLate(close: (paymentId: string) => Promise<unknown>, amount: bigint) {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    await quoteDeposit(server.db, collector(), paymentId, { chain: chain().caip2, asset: usdc().caip19 });
    await close(paymentId);
    const hash = await send(depositAddress(collector(), paymentId), amount);
    await expect.poll(async () => (await paymentOf(paymentId)).exceptions?.length ?? 0, { timeout: 30_000 }).toBe(1);
    const [late] = (await paymentOf(paymentId)).exceptions;
    expect(late).toMatchObject({ type: 'paid_late', amount: { value: amount.toString() } });
    return { paymentId, exceptionId: late.id as string, hash };
  }
  const cancel = (paymentId: string) =>
    call(server, `/v1/payments/${paymentId}/cancel`, { method: 'POST', headers: headers() });

  beforeAll(async () => {
    service = await startDevnetService({ prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' } });
    ({ devnet, server } = service);
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('makes a cancelled payment succeed with the late transfer, once, announced as payment.succeeded', async () => {
    const { paymentId, exceptionId, hash } = await paidLate(cancel, 10_000_000n);

    const accepted = await accept(paymentId, exceptionId);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({
      paymentId,
      status: 'succeeded',
      isTerminal: true,
      tokenAmount: { unit: `caip19/${usdc().caip19}`, value: '10000000' },
      buyer: { accountCaip10: `${chain().caip2}:${buyer().evmAddress}`, accountProviderName: 'Deposit address' },
      exceptions: [{ id: exceptionId, type: 'paid_late', acceptedAt: expect.any(String) }],
    });
    expect(accepted.body.failureCode).toBeUndefined();
    const stored = await server.db
      .selectFrom('payments')
      .select(['tx_hash', 'fee_total', 'settlement_amount'])
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect(stored.tx_hash).toBe(hash.toLowerCase());
    // Fees and what the merchant is owed are fixed as for any payment that succeeds.
    expect(stored.fee_total).not.toBeNull();
    expect(stored.settlement_amount).not.toBeNull();
    const events = await server.db
      .selectFrom('webhook_events')
      .select('type')
      .where('body', 'like', `%${paymentId}%`)
      .orderBy('created_at')
      .execute();
    expect(events.map((event) => event.type)).toEqual([
      'payment.created',
      'payment.cancelled',
      'payment.paid_late',
      'payment.succeeded',
    ]);

    const again = await accept(paymentId, exceptionId);
    expect(again.status).toBe(200);
    expect(again.body.exceptions[0].acceptedAt).toBe(accepted.body.exceptions[0].acceptedAt);
    expect(
      await server.db
        .selectFrom('webhook_events')
        .select('id')
        .where('type', '=', 'payment.succeeded')
        .where('body', 'like', `%${paymentId}%`)
        .execute(),
    ).toHaveLength(1);

    // It is the merchant's money now: refunded as the payment, not sent back as an exception.
    const exceptionRefund = await call(server, '/v1/refunds', {
      method: 'POST',
      headers: headers(),
      body: { paymentId, exceptionId },
    });
    await expectRefused(exceptionRefund, 400, 'invalid_state');
    const paymentRefund = await call(server, '/v1/refunds', {
      method: 'POST',
      headers: headers(),
      body: { paymentId },
    });
    expect(paymentRefund.status, paymentRefund.text).toBe(200);
    expect(paymentRefund.body.tokenAmount.value).toBe('10000000');
  });

  it('takes what an expired payment received late, whatever the amount', async () => {
    const { paymentId, exceptionId } = await paidLate(async (id) => {
      await expirePaymentNow(server.ctx, id);
      expect((await paymentOf(id)).status).toBe('expired');
    }, 12_500_000n);
    const accepted = await accept(paymentId, exceptionId);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'succeeded', tokenAmount: { value: '12500000' } });
    expect(
      await withDepositTables(server.db)
        .selectFrom('evm_deposits')
        .select('outcome')
        .where('payment_id', '=', paymentId)
        .execute(),
    ).toEqual([{ outcome: 'paid_late' }]);
  });

  it('refuses another type of exception, a payment that succeeded, an exception being sent back, and one not there', async () => {
    // Paid, then a second transfer: late on a payment that succeeded, which is sent back, not accepted.
    const { paymentId: paid } = await createPayment(server, partner.apiKey, merchantId);
    await quoteDeposit(server.db, collector(), paid, { chain: chain().caip2, asset: usdc().caip19 });
    await send(depositAddress(collector(), paid), 11_000_000n);
    await expect.poll(async () => (await paymentOf(paid)).status, { timeout: 30_000 }).toBe('succeeded');
    const [overpaid] = (await paymentOf(paid)).exceptions;
    expect(overpaid.type).toBe('overpaid');
    await expectRefused(await accept(paid, overpaid.id), 400, 'invalid_state');
    await send(depositAddress(collector(), paid), 2_000_000n);
    await expect.poll(async () => (await paymentOf(paid)).exceptions.length, { timeout: 30_000 }).toBe(2);
    const late = (await paymentOf(paid)).exceptions.find((entry: { type: string }) => entry.type === 'paid_late');
    await expectRefused(await accept(paid, late.id), 400, 'invalid_state');
    await expectRefused(await accept(paid, 'exc_unknown'), 404, 'not_found');

    const { paymentId, exceptionId } = await paidLate(cancel, 10_000_000n);
    const sentBack = await call(server, '/v1/refunds', {
      method: 'POST',
      headers: headers(),
      body: { paymentId, exceptionId },
    });
    expect(sentBack.status, sentBack.text).toBe(200);
    await expectRefused(await accept(paymentId, exceptionId), 409, 'already_refunded');
    expect((await paymentOf(paymentId)).status).toBe('cancelled');
  });

  it('answers not found for another partner’s payment, and changes nothing', async () => {
    const { paymentId, exceptionId } = await paidLate(cancel, 10_000_000n);
    const other = await newPartner(server.db, 'Another partner');
    const otherMerchant = (await createMerchant(server, other.apiKey)).id;
    const foreign = await accept(paymentId, exceptionId, { 'api-key': other.apiKey, 'merchant-id': otherMerchant });
    await expectRefused(foreign, 404, 'payment_not_found');
    const wrongMerchant = await accept(paymentId, exceptionId, { 'api-key': other.apiKey, 'merchant-id': merchantId });
    expect(wrongMerchant.status).toBe(404);
    const missingKey = await call(server, `/v1/payments/${paymentId}/exceptions/${exceptionId}/accept`, {
      method: 'POST',
      headers: { 'merchant-id': merchantId },
    });
    expect(missingKey.status).toBe(401);
    const { status, exceptions } = await paymentOf(paymentId);
    expect(status).toBe('cancelled');
    expect(exceptions[0].acceptedAt).toBeUndefined();
  });

  it("leaves the ledger agreeing with the merchant's records once late transfers were accepted", async () => {
    const audit = await auditOfMerchant(server.db, merchantId);
    expect(audit.lines.map((line) => line.check)).toContain('merchant');
    expect(audit.differing).toEqual([]);
  });
});
