import type { Devnet } from '@paygate/devnet';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositAddress } from '../../src/chains/evm/deposits/addresses.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { buyersAccount, merchantAccount } from '../../src/ledger/ledger.ts';
import { setMerchantStatus } from '../../src/merchants/merchantStatus.ts';
import { RefundWorker } from '../../src/refunds/refundWorker.ts';
import { launchChromium, saveScreenshots } from '../checkout/support/browser.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { devnetPlainWallet } from '../support/devnetPlainWallet.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { call, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';

/**
 * A merchant an operator suspended collects nothing by any method: its checkout offers no way to pay, and a transfer
 * that still reaches its payment's deposit address is held for the sender as a payment exception, never revenue,
 * not even once the merchant is active again; the sender can be sent it back.
 */
describe('a suspended merchant collects nothing, on the devnet', () => {
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
  const ledgerBalance = (account: string) => ledgerBalanceOf(server.db, account, usdc().caip19);

  beforeAll(async () => {
    service = await startDevnetService({ prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' } });
    ({ devnet, server } = service);
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('shows no way to pay, holds a transfer to the deposit address for its sender, and sends it back', async () => {
    const { paymentId, gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
    await quoteDeposit(server.db, collector(), paymentId, { chain: chain().caip2, asset: usdc().caip19 });
    const address = depositAddress(collector(), paymentId);
    const open = await (await fetch(gatewayUrl)).text();
    expect(open.toLowerCase()).toContain(address.toLowerCase());

    expect(await setMerchantStatus(server.db, merchantId, 'suspended')).toBe(true);
    const page = await (await fetch(gatewayUrl)).text();
    expect(page).toContain('Not taking payments');
    expect(page.toLowerCase()).not.toContain(address.toLowerCase());
    expect(page).not.toContain('solana:');
    expect(page).not.toContain('class="qr"');
    // As a buyer sees it, on a phone and a desktop.
    const browser = await launchChromium();
    try {
      const shown = await (await browser.newContext({ locale: 'en-US' })).newPage();
      await shown.goto(gatewayUrl);
      await expect.poll(() => shown.getByRole('heading', { name: 'Not taking payments' }).isVisible()).toBe(true);
      expect(await shown.locator('figure.qr').count()).toBe(0);
      await saveScreenshots(shown, 'merchant-not-taking-payments');
    } finally {
      await browser.close();
    }

    // The buyer pays the address it noted before the suspension: the exact amount asked.
    await send(address, 10_000_000n);
    await expect
      .poll(
        async () =>
          (
            await withDepositTables(server.db)
              .selectFrom('evm_deposits')
              .select('outcome')
              .where('payment_id', '=', paymentId)
              .execute()
          ).map((row) => row.outcome),
        { timeout: 30_000 },
      )
      .toEqual(['paid_late']);
    const held = await paymentOf(paymentId);
    expect(held.status).toBe('requires_action');
    expect(held.exceptions).toEqual([
      expect.objectContaining({ type: 'paid_late', amount: expect.objectContaining({ value: '10000000' }) }),
    ]);
    expect(await ledgerBalance(buyersAccount(merchantId))).toBe(10_000_000n);
    expect(await ledgerBalance(merchantAccount(merchantId))).toBe(0n);

    // Active again: the transfer is still the buyer's, not the merchant's revenue.
    expect(await setMerchantStatus(server.db, merchantId, 'active')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await paymentOf(paymentId)).status).toBe('requires_action');
    expect(await ledgerBalance(merchantAccount(merchantId))).toBe(0n);

    const before = await balanceOf(buyer().evmAddress);
    const made = await call(server, '/v1/refunds', {
      method: 'POST',
      headers: headers(),
      body: { paymentId, exceptionId: held.exceptions[0].id },
    });
    expect(made.status, made.text).toBe(200);
    const refunds = new RefundWorker({
      db: server.db,
      chains: service.chains,
      services: service.services,
      clock: { now: () => new Date() },
    });
    await expect
      .poll(
        async () => {
          await refunds.runOnce();
          return (await call(server, `/v1/refunds/${made.body.id}`, { headers: headers() })).body.status;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe('succeeded');
    expect((await balanceOf(buyer().evmAddress)) - before).toBe(10_000_000n);
    expect(await ledgerBalance(buyersAccount(merchantId))).toBe(0n);
  });
});
