import type { Devnet } from '@paygate/devnet';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositAddress } from '../../src/chains/evm/deposits/addresses.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { refundDebt } from '../../src/refunds/refundDebt.ts';
import { RefundWorker } from '../../src/refunds/refundWorker.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { expirePaymentNow } from '../support/expirePaymentNow.ts';
import { devnetPlainWallet } from '../support/devnetPlainWallet.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, expectErrorBody, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';
import { auditOfMerchant } from '../support/ledgerAudit.ts';

/**
 * Payment exceptions sent back: on the devnet, a buyer overpays, underpays or pays late to a deposit address, and the
 * merchant has what did not pay the payment sent back, whole, to the account that sent it.
 */
describe('refunds of payment exceptions, on the devnet', () => {
  let service: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  const { chain, token, buyer, send, balanceOf } = devnetPlainWallet(() => devnet);
  const usdc = () => token('USDC');
  const collector = () => privateKeyToAccount(service.keys.evmPrivateKey).address;
  const headers = () => ({ 'api-key': partner.apiKey, 'merchant-id': merchantId });
  const paymentOf = async (paymentId: string) =>
    (await call(server, `/v1/payments/${paymentId}`, { headers: headers() })).body;
  const refund = (body: Record<string, unknown>) =>
    call(server, '/v1/refunds', { method: 'POST', headers: headers(), body });
  const refundWorker = () =>
    new RefundWorker({
      db: server.db,
      chains: service.chains,
      services: service.services,
      clock: { now: () => new Date() },
    });
  /** A payment whose deposit address takes 10 USDC, paid by `amounts` one after another, each seen at depth. */
  async function paidWith(...amounts: bigint[]) {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    await quoteDeposit(server.db, collector(), paymentId, { chain: chain().caip2, asset: usdc().caip19 });
    for (const [index, amount] of amounts.entries()) {
      await send(depositAddress(collector(), paymentId), amount);
      await expect
        .poll(
          async () =>
            (
              await withDepositTables(server.db)
                .selectFrom('evm_deposits')
                .select('tx_hash')
                .where('payment_id', '=', paymentId)
                .execute()
            ).length,
          { timeout: 30_000 },
        )
        .toBe(index + 1);
    }
    return paymentId;
  }
  async function sentBack(refundId: string) {
    await refundWorker().runOnce();
    await expect
      .poll(async () => (await call(server, `/v1/refunds/${refundId}`, { headers: headers() })).body.status, {
        timeout: 30_000,
      })
      .toBe('succeeded');
  }

  beforeAll(async () => {
    service = await startDevnetService({ prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' } });
    ({ devnet, server } = service);
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('sends the excess of an overpaid payment back to the buyer, once, without touching what the merchant is owed', async () => {
    const paymentId = await paidWith(13_000_000n);
    const [excess] = (await paymentOf(paymentId)).exceptions;
    expect(excess).toMatchObject({
      type: 'overpaid',
      id: expect.stringMatching(/^exc_/),
      amount: { value: '3000000' },
    });

    const before = await balanceOf(buyer().evmAddress);
    const made = await refund({ paymentId, exceptionId: excess.id });
    expect(made.status, made.text).toBe(200);
    expect(made.body).toMatchObject({
      method: 'onchain',
      status: 'pending',
      exceptionId: excess.id,
      amount: { unit: 'iso4217/USD', value: '0' },
      tokenAmount: { unit: `caip19/${usdc().caip19}`, value: '3000000' },
    });
    expect(made.body.destination.toLowerCase()).toBe(`${chain().caip2}:${buyer().evmAddress}`.toLowerCase());
    expect((await paymentOf(paymentId)).exceptions[0].refundId).toBe(made.body.id);

    const again = await refund({ paymentId, exceptionId: excess.id });
    expect({ status: again.status, code: expectErrorBody(again).code }).toEqual({
      status: 409,
      code: 'already_refunded',
    });

    await sentBack(made.body.id);
    expect((await balanceOf(buyer().evmAddress)) - before).toBe(3_000_000n);
    // The excess was never the merchant's: its payments owe nothing back, and the payment is not refunded.
    expect(await refundDebt(server.db, merchantId, usdc().caip19)).toBe(0n);
    const payment = await paymentOf(paymentId);
    expect(payment.status).toBe('succeeded');
    expect(payment.refundedAmount).toEqual({ unit: 'iso4217/USD', value: '0' });
    const whole = await refund({ paymentId });
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body.tokenAmount.value).toBe('10000000');
  });

  it('sends back what an underpaid payment received only once it failed, and a late transfer', async () => {
    const paymentId = await paidWith(4_000_000n);
    const [underpaid] = (await paymentOf(paymentId)).exceptions;
    const early = await refund({ paymentId, exceptionId: underpaid.id });
    expect({ status: early.status, code: expectErrorBody(early).code }).toEqual({ status: 400, code: 'invalid_state' });

    await expirePaymentNow(server.ctx, paymentId);
    expect((await paymentOf(paymentId)).failureCode).toBe('underpaid');
    const before = await balanceOf(buyer().evmAddress);
    const made = await refund({ paymentId, exceptionId: underpaid.id });
    expect(made.status, made.text).toBe(200);
    await sentBack(made.body.id);
    expect((await balanceOf(buyer().evmAddress)) - before).toBe(4_000_000n);

    await send(depositAddress(collector(), paymentId), 6_000_000n);
    await expect.poll(async () => (await paymentOf(paymentId)).exceptions.length, { timeout: 30_000 }).toBe(2);
    const late = (await paymentOf(paymentId)).exceptions.find((entry: { type: string }) => entry.type === 'paid_late');
    expect(late.amount.value).toBe('6000000');
    const beforeLate = await balanceOf(buyer().evmAddress);
    const lateRefund = await refund({ paymentId, exceptionId: late.id });
    expect(lateRefund.status, lateRefund.text).toBe(200);
    await sentBack(lateRefund.body.id);
    expect((await balanceOf(buyer().evmAddress)) - beforeLate).toBe(6_000_000n);
  });

  it('refuses an exception that is not the payment’s, an amount or send: false beside it', async () => {
    const paymentId = await paidWith(11_000_000n);
    const [excess] = (await paymentOf(paymentId)).exceptions;
    const expectIssue = async (body: Record<string, unknown>, status: number, code: string) => {
      const result = await refund(body);
      expect({ status: result.status, code: expectErrorBody(result).code }, result.text).toEqual({ status, code });
    };
    await expectIssue({ paymentId, exceptionId: 'exc_unknown' }, 404, 'not_found');
    await expectIssue(
      { paymentId, exceptionId: excess.id, amount: { unit: 'iso4217/USD', value: '100' } },
      400,
      'params_validation',
    );
    await expectIssue({ paymentId, exceptionId: excess.id, send: false }, 400, 'params_validation');
    const other = await paidWith(10_000_000n);
    await expectIssue({ paymentId: other, exceptionId: excess.id }, 404, 'not_found');
    const otherPartner = await newPartner(server.db, 'Another partner');
    const foreign = await call(server, '/v1/refunds', {
      method: 'POST',
      headers: { 'api-key': otherPartner.apiKey, 'merchant-id': merchantId },
      body: { paymentId, exceptionId: excess.id },
    });
    expect(foreign.status).toBe(404);
  });

  it("leaves the ledger agreeing with the merchant's records once exceptions were sent back", async () => {
    const audit = await auditOfMerchant(server.db, merchantId);
    expect(audit.lines.map((line) => line.check)).toContain('merchant');
    expect(audit.differing).toEqual([]);
  });
});
