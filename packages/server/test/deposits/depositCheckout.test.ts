import type { Devnet } from '@paygate/devnet';
import type { Browser } from 'playwright-core';
import type { Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositAddress } from '../../src/chains/evm/deposits/addresses.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { decodeQr, launchChromium, saveScreenshots } from '../checkout/support/browser.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { expirePaymentNow } from '../support/expirePaymentNow.ts';
import { devnetPlainWallet } from '../support/devnetPlainWallet.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';

const SCREENS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

/** An EIP-681 ERC-20 transfer request, as the page's QR code carries it. */
const TRANSFER_URI = /^ethereum:(0x[0-9a-fA-F]{40})@(\d+)\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=(\d+)$/;

describe('checkout page: a deposit address any wallet pays, in Chromium on the devnet', () => {
  let service: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let browser: Browser;

  const chain = () => devnet.manifest.evm[0]!;
  const token = (symbol: string) => chain().tokens.find((candidate) => candidate.symbol === symbol)!;
  const collector = () => privateKeyToAccount(service.keys.evmPrivateKey).address;

  // A wallet that knows nothing of paygate: a buyer's key and, where the test has one, the chain the URI names.
  const plain = devnetPlainWallet(() => devnet);
  const sendPlainTransfer = (chainId: number, tokenAddress: Address, recipient: Address, amount: bigint) =>
    plain.send(recipient, amount, { token: tokenAddress, chainId });

  beforeAll(async () => {
    service = await startDevnetService({ prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' } });
    ({ devnet, server } = service);
    partner = await newPartner(server.db);
    merchantId = (
      await createMerchant(server, partner.apiKey, {
        merchantName: 'Corner Shop',
        merchantEmail: 'owner@corner-shop.com',
      })
    ).id;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('shows the address, amount and network with an EIP-681 QR code that, paid with a plain key through viem, turns the page to paid by itself', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const context = await browser.newContext({ viewport: SCREENS.phone, locale: 'en-US' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(gatewayUrl).origin });
    const page = await context.newPage();
    await page.goto(gatewayUrl);
    const usdc = token('USDC');
    const panel = page.locator(`[data-pay-panel][data-asset="${usdc.caip19}"]`);
    await expect.poll(() => panel.isVisible()).toBe(true);
    const address = depositAddress(collector(), paymentId);
    // Sending by hand: the address (also as a QR code of its own), the exact amount and the network, as text.
    await panel.getByText('Send to an address', { exact: true }).click();
    expect(await panel.locator('[data-deposit-address]').textContent()).toBe(address);
    expect(await panel.locator('[data-deposit-amount]').textContent()).toBe('10');
    expect(await panel.locator('[data-deposit-network]').textContent()).toBe(
      `${chain().name} (chain id ${chain().chainId})`,
    );
    await panel.getByRole('button', { name: 'Copy address' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(address);
    // The amount copies as a wallet's field takes it, and the button says it copied.
    const copyAmount = panel.locator('button[data-copy][value="10"]');
    expect(await copyAmount.getAttribute('aria-label')).toBe('Copy amount');
    await copyAmount.click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('10');
    expect([await copyAmount.getAttribute('aria-label'), await copyAmount.textContent()]).toEqual(['Copied', 'Copied']);
    expect(await decodeQr(await panel.locator('figure.qr-address svg').screenshot())).toBe(address);
    await saveScreenshots(page, 'deposit-address', SCREENS);

    // Scanning: the EIP-681 request, which fills in the token, the amount and the address.
    await panel.getByText('Scan with a wallet app', { exact: true }).click();
    const uri = await decodeQr(await panel.locator('figure.qr svg').screenshot());
    const match = TRANSFER_URI.exec(uri ?? '');
    expect(match, uri).not.toBeNull();
    const [, tokenAddress, chainId, recipient, amount] = match as unknown as [string, Address, string, Address, string];
    expect(tokenAddress.toLowerCase()).toBe(usdc.address.toLowerCase());
    expect(Number(chainId)).toBe(chain().chainId);
    expect(recipient).toBe(address);
    expect(amount).toBe('10000000');

    const hash = await sendPlainTransfer(Number(chainId), tokenAddress, recipient, BigInt(amount));
    await expect
      .poll(() => page.locator('[data-view]:not([hidden]) h2').textContent(), { timeout: 45_000 })
      .toBe('Payment complete');
    await saveScreenshots(page, 'deposit-address-paid', SCREENS);
    const payment = await call(server, `/v1/payments/${paymentId}`, {
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
    });
    expect(payment.body.status).toBe('succeeded');
    const [deposit] = await withDepositTables(server.db)
      .selectFrom('evm_deposits')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .execute();
    expect(deposit).toMatchObject({ tx_hash: hash.toLowerCase(), outcome: 'paid', amount: '10000000' });
    await context.close();
  });

  it('after a transfer of less than asked, says by itself what arrived and asks for the rest, which pays the payment', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const context = await browser.newContext({ viewport: SCREENS.phone, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(gatewayUrl);
    const usdc = token('USDC');
    const address = depositAddress(collector(), paymentId);
    const panel = page.locator(`[data-pay-panel][data-asset="${usdc.caip19}"]`);
    await expect.poll(() => panel.isVisible()).toBe(true);
    // Before anything arrives, this browser's wallets are offered (here: none found, which it says).
    await expect.poll(() => page.locator('#browser-wallet').isVisible()).toBe(true);
    const gateway = { headers: { 'api-key': partner.apiKey } };
    const before = (await call(server, `/v1/gateway/payment/${paymentId}/status`, gateway)).body.version;
    expect(before).toEqual(expect.any(String));
    await sendPlainTransfer(chain().chainId, usdc.address as Address, address, 6_000_000n);
    await expect
      .poll(
        async () =>
          (
            await withDepositTables(server.db)
              .selectFrom('evm_deposits')
              .select('outcome')
              .where('payment_id', '=', paymentId)
              .execute()
          ).length,
        { timeout: 30_000 },
      )
      .toBe(1);

    // No reload by the buyer: the page follows what arrived and asks for the rest. Its long-poll names the version
    // it last saw, so a transfer recorded just before the request arrived answers it at once.
    await expect.poll(() => panel.locator('h3').textContent(), { timeout: 15_000 }).toBe('Send the remaining 4 USDC');
    expect(await panel.locator('[role="status"]').textContent()).toBe(
      'Received 6 USDC so far, less than the payment asks.',
    );
    expect(await panel.locator('[data-deposit-amount]').textContent()).toBe('4');
    // No wallet of this browser is offered to pay the whole again.
    await expect.poll(() => page.locator('#browser-wallet').isHidden()).toBe(true);
    await saveScreenshots(page, 'deposit-address-underpaid', SCREENS);
    const uri = await decodeQr(await panel.locator('figure.qr svg').screenshot());
    expect(uri).toBe(`ethereum:${usdc.address}@${chain().chainId}/transfer?address=${address}&uint256=4000000`);
    // A wallet or a checkout of the merchant's own learns the same from the gateway.
    const usdcAmount = (value: string) => ({
      unit: `caip19/${usdc.caip19}`,
      value,
      display: { assetSymbol: 'USDC', assetName: expect.any(String), decimals: 6, networkName: chain().name },
    });
    const received = [
      {
        amount: usdcAmount('6000000'),
        expected: usdcAmount('10000000'),
        remaining: usdcAmount('4000000'),
        address,
        uri: `ethereum:${usdc.address}@${chain().chainId}/transfer?address=${address}&uint256=4000000`,
      },
    ];
    const status = await call(server, `/v1/gateway/payment/${paymentId}/status`, gateway);
    expect(status.body).toMatchObject({ status: 'requires_action', received });
    const { version } = status.body;
    expect(version).not.toBe(before);
    expect(await call(server, `/v1/gateway/payment/${paymentId}`, gateway)).toMatchObject({
      body: { received, version },
    });
    // A long-poll from the version seen before the transfer answers at once with what arrived since.
    const stale = call(server, `/v1/gateway/payment/${paymentId}/status?maxPollMs=30000&since=${before}`, gateway);
    const staleAnswer = await Promise.race([stale, new Promise((resolve) => setTimeout(resolve, 10_000, 'held'))]);
    expect(staleAnswer).toMatchObject({ status: 200, body: { version, received } });
    const tooLong = await call(server, `/v1/gateway/payment/${paymentId}/status?since=${'v'.repeat(65)}`, gateway);
    expect(tooLong).toMatchObject({ status: 400, body: { code: 'params_validation' } });

    // A status request held from the version seen now wakes when the rest arrives.
    const held = call(server, `/v1/gateway/payment/${paymentId}/status?maxPollMs=30000&since=${version}`, gateway);
    await sendPlainTransfer(chain().chainId, usdc.address as Address, address, 4_000_000n);
    await expect
      .poll(() => page.locator('[data-view]:not([hidden]) h2').textContent(), { timeout: 45_000 })
      .toBe('Payment complete');
    const after = (await held).body;
    expect(after.status).not.toBe('requires_action');
    expect(after.version).not.toBe(version);
    expect(after).not.toHaveProperty('received');
    const paid = await call(server, `/v1/gateway/payment/${paymentId}/status`, gateway);
    expect(paid.body).toMatchObject({ status: 'succeeded', info: { optionAmount: { value: '10000000' } } });
    expect(paid.body).not.toHaveProperty('received');
    await context.close();
  });

  it('tells a buyer who sent less than asked, once the payment expired, that what arrived can be sent back', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const context = await browser.newContext({ viewport: SCREENS.phone, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(gatewayUrl);
    const usdc = token('USDC');
    const panel = page.locator(`[data-pay-panel][data-asset="${usdc.caip19}"]`);
    await expect.poll(() => panel.isVisible()).toBe(true);
    await sendPlainTransfer(
      chain().chainId,
      usdc.address as Address,
      depositAddress(collector(), paymentId),
      6_000_000n,
    );
    await expect.poll(() => panel.locator('h3').textContent(), { timeout: 30_000 }).toBe('Send the remaining 4 USDC');

    await expirePaymentNow(server.ctx, paymentId);
    await expect
      .poll(() => page.locator('[data-view]:not([hidden]) h2').textContent(), { timeout: 15_000 })
      .toBe('Payment failed');
    expect(await page.locator('#failure-reason').textContent()).toBe(
      'Less than the payment asks arrived before it expired. What you sent can be sent back to you: contact Corner Shop and give them the reference below.',
    );
    await saveScreenshots(page, 'deposit-address-underpaid-failed', SCREENS);
    // The same words when the page is opened afresh.
    await page.reload();
    expect(await page.locator('#failure-reason').textContent()).toContain('What you sent can be sent back to you');
    await context.close();
  });

  it('shows the panel of the token the buyer picks, with the amount first shown kept for the payment', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const context = await browser.newContext({ viewport: SCREENS.desktop, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(gatewayUrl);
    const usdt = token('USDT');
    await page.locator(`input[name="accepted"][value="${usdt.caip19}"]`).check();
    const panel = page.locator(`[data-pay-panel][data-asset="${usdt.caip19}"]`);
    await expect.poll(() => panel.isVisible()).toBe(true);
    expect(await page.locator(`[data-pay-panel][data-asset="${token('USDC').caip19}"]`).isVisible()).toBe(false);
    const uri = await decodeQr(await panel.locator('figure.qr svg').screenshot());
    expect(uri).toBe(
      `ethereum:${usdt.address}@${chain().chainId}/transfer?address=${depositAddress(collector(), paymentId)}&uint256=10000000`,
    );

    // The quote is fixed at the first showing: a second showing keeps it even when the stored amount is not today's.
    await withDepositTables(server.db)
      .updateTable('evm_deposit_quotes')
      .set({ amount: '10000001' })
      .where('payment_id', '=', paymentId)
      .where('asset', '=', usdt.caip19)
      .execute();
    const again = await (await fetch(gatewayUrl)).text();
    expect(again).toContain(`uint256=10000001`);
    await context.close();
  });

  it('asks for the native coin with an EIP-681 value transfer that a plain wallet pays', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const context = await browser.newContext({ viewport: SCREENS.desktop, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(gatewayUrl);
    const eth = service.chains.network(chain().caip2)!.tokens.find((candidate) => candidate.method === 'native')!;
    await page.locator(`input[name="accepted"][value="${eth.caip19}"]`).check();
    const panel = page.locator(`[data-pay-panel][data-asset="${eth.caip19}"]`);
    await expect.poll(() => panel.isVisible()).toBe(true);
    const address = depositAddress(collector(), paymentId);
    const uri = await decodeQr(await panel.locator('figure.qr svg').screenshot());
    const match = /^ethereum:(0x[0-9a-fA-F]{40})@(\d+)\?value=(\d+)$/.exec(uri ?? '');
    expect(match, uri).not.toBeNull();
    const [, recipient, chainId, wei] = match as unknown as [string, Address, string, string];
    expect(recipient).toBe(address);
    expect(Number(chainId)).toBe(chain().chainId);
    expect(await panel.locator('[data-deposit-amount]').textContent()).toBe(
      `${BigInt(wei) / 10n ** 18n}.${(BigInt(wei) % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '')}`,
    );
    expect(await panel.getByText('ETH contract').count()).toBe(0);
    await saveScreenshots(page, 'deposit-address-native', SCREENS);

    await plain.wallet('bob', Number(chainId)).sendTransaction({ to: recipient, value: BigInt(wei) });
    await expect
      .poll(() => page.locator('[data-view]:not([hidden]) h2').textContent(), { timeout: 45_000 })
      .toBe('Payment complete');
    await context.close();
  });
});
