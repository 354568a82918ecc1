import type { Devnet } from '@paygate/devnet';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CornerShop, startCornerShop } from './support/cornerShop.ts';
import { createPayment } from '../support/fixtures.ts';
import { call, type TestPartner, type TestServer } from '../support/testServer.ts';
import {
  iconDataUri,
  injectDevnetWallet,
  injectSolanaWallet,
  saveScreenshots,
  textColours,
  contrastRatio,
} from './support/browser.ts';

/** The screens the new states are looked at on: a current phone and a desktop. */
const SCREENS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

describe('checkout page: accepted tokens up front, EIP-6963 and Wallet Standard wallets, in Chromium on the devnet', () => {
  let shop: CornerShop;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let walletHeaders: Record<string, string>;
  let browser: Browser;

  const buyer = (name: string) => {
    const found = devnet.manifest.buyers.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no devnet buyer ${name}`);
    return found;
  };
  const visibleHeading = (page: Page) => page.locator('[data-view]:not([hidden]) h2');

  beforeAll(async () => {
    shop = await startCornerShop();
    ({ devnet, server, partner, merchantId, walletHeaders, browser } = shop);
  }, 180_000);

  afterAll(async () => {
    await shop?.close();
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: SCREENS.phone, locale: 'en-US' });
    return { context, page: await context.newPage() };
  }

  /** The page's accepted list: each radio's token, amount in minor units, label and whether it is checked. */
  function acceptedOnPage(page: Page) {
    return page.locator('input[name="accepted"]').evaluateAll((radios) =>
      (radios as HTMLInputElement[]).map((radio) => ({
        asset: radio.value,
        amount: radio.dataset.amount,
        label: radio.closest('label')?.textContent?.replace(/\s+/g, ' ').trim(),
        checked: radio.checked,
      })),
    );
  }

  const boxOnScreen = async (page: Page, selector: string, height: number) => {
    const box = await page.locator(selector).first().boundingBox();
    return box !== null && box.y >= 0 && box.y + box.height <= height;
  };

  it('lists every network and token with the amount the gateway quotes, before any wallet connects', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const { context, page } = await newPage();
    await page.goto(gatewayUrl);
    const accepted = await acceptedOnPage(page);

    // Alice holds every token the devnet has, so the gateway offers her an option in each: the same list.
    const alice = buyer('alice');
    const accounts = [
      ...devnet.manifest.evm.map((chain) => `${chain.caip2}:${alice.evmAddress}`),
      `${devnet.manifest.solana.caip2}:${alice.solanaAddress}`,
    ];
    const options = await call(server, `/v1/gateway/payment/${paymentId}/options`, {
      method: 'POST',
      headers: walletHeaders,
      body: { accounts },
    });
    expect(options.status, options.text).toBe(200);
    const quoted = new Map<string, string>(
      options.body.options.map((option: any) => [option.amount.unit.replace(/^caip19\//, ''), option.amount.value]),
    );
    expect(accepted).toHaveLength(11);
    expect(new Map(accepted.map(({ asset, amount }) => [asset, amount]))).toEqual(quoted);

    const [chainA, chainB] = devnet.manifest.evm;
    const solana = devnet.manifest.solana;
    expect(accepted.map(({ label }) => label)).toEqual([
      `10 USDC ${chainA!.name}`,
      `9.199633 EURC ${chainA!.name}`,
      `10 USDT ${chainA!.name}`,
      `10 USDS ${chainA!.name}`,
      `0.00333334 ETH ${chainA!.name}`,
      `10 USDC ${chainB!.name}`,
      `9.199633 EURC ${chainB!.name}`,
      `10 USDT ${chainB!.name}`,
      `10 USDS ${chainB!.name}`,
      `0.00333334 ETH ${chainB!.name}`,
      `10 USDC ${solana.name}`,
    ]);
    // The payment currency's stablecoin is preselected.
    expect(accepted.filter(({ checked }) => checked).map(({ asset }) => asset)).toEqual([accepted[0]!.asset]);
    // The first six are listed; the rest wait behind a button.
    expect(await page.getByRole('group', { name: 'Choose how to pay' }).getByRole('radio').count()).toBe(6);

    // No wallet in this browser: the page says so for the pick, and the QR code stays the way to pay.
    const noWallet = page.locator('#no-wallet');
    await expect
      .poll(() => noWallet.textContent())
      .toContain(`No EVM wallet was found in this browser to pay on ${chainA!.name}`);
    expect(await boxOnScreen(page, '#no-wallet', SCREENS.phone.height)).toBe(true);
    await saveScreenshots(page, 'accepted-no-wallet', SCREENS);
    await page.getByRole('button', { name: 'Show all 11 ways to pay' }).click();
    expect(await page.getByRole('group', { name: 'Choose how to pay' }).getByRole('radio').count()).toBe(11);
    await page.getByRole('radio', { name: `10 USDC ${solana.name}` }).check();
    await expect
      .poll(() => noWallet.textContent())
      .toContain(`No Solana wallet was found in this browser to pay on ${solana.name}`);
    expect(await page.getByRole('button', { name: /^Pay with/ }).count()).toBe(0);

    // Without JavaScript the list is there to read.
    const plain = await browser.newContext({ javaScriptEnabled: false, viewport: SCREENS.phone });
    const plainPage = await plain.newPage();
    await plainPage.goto(gatewayUrl);
    expect(await acceptedOnPage(plainPage)).toEqual(
      accepted.map((entry, index) => ({ ...entry, checked: index === 0 })),
    );
    expect(await plainPage.locator('.accepted .no-wallet').textContent()).toBe(
      'Browser wallets need JavaScript: turn it on to pay from this device, or scan the QR code with a phone wallet.',
    );
    await saveScreenshots(plainPage, 'accepted-without-javascript', SCREENS);
    await plain.close();
    await context.close();
  });

  it("shows a long list's first six ways to pay and the rest on demand, the wallet staying on a phone's first screen", async () => {
    // Three more USD stablecoins on the second chain make fourteen ways to pay, as a service on many networks has.
    const network = server.ctx.chains.network(devnet.manifest.evm[1]!.caip2)!;
    const usdc = network.tokens.find((token) => token.symbol === 'USDC')!;
    const extra = ['1', '2', '3'].map((n) => ({
      ...usdc,
      caip19: `${network.caip2}/erc20:0x${n.padStart(40, '0')}`,
      address: `0x${n.padStart(40, '0')}`,
      symbol: `USD${n}`,
    }));
    network.tokens.push(...extra);
    try {
      const { gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
      const { context, page } = await newPage();
      const chain = devnet.manifest.evm[0]!;
      await injectDevnetWallet(page, {
        privateKey: buyer('alice').evmPrivateKey,
        chain: { chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: chain.name },
        announce: { name: 'Amber Wallet', rdns: 'example.amber', icon: iconDataUri('#b45309') },
      });
      await page.goto(gatewayUrl);
      const showAll = page.getByRole('button', { name: 'Show all 14 ways to pay' });
      await expect.poll(() => showAll.isVisible()).toBe(true);
      const shown = page.locator('input[name="accepted"]:visible');
      expect(await shown.count()).toBe(6);
      for (const screen of [SCREENS.phone, { width: 375, height: 812 }]) {
        await page.setViewportSize(screen);
        expect(await boxOnScreen(page, '#wallet-list button', screen.height)).toBe(true);
      }
      await saveScreenshots(page, 'accepted-long-list', SCREENS);

      await showAll.focus();
      await page.keyboard.press('Enter');
      expect(await shown.count()).toBe(14);
      expect(await showAll.count()).toBe(0);
      expect(
        await page
          .locator('input[name="accepted"]')
          .nth(6)
          .evaluate((radio) => radio === document.activeElement),
      ).toBe(true);
      expect(await page.locator('input[name="accepted"]').first().isChecked()).toBe(true);
      await context.close();
    } finally {
      network.tokens.splice(network.tokens.length - extra.length, extra.length);
    }
  });

  it('lists two EIP-6963 wallets by name and icon; the buyer picks the second by keyboard and the payment succeeds', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const { context, page } = await newPage();
    const chain = devnet.manifest.evm[0]!;
    const walletChain = { chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: chain.name };
    const amber = await injectDevnetWallet(page, {
      privateKey: buyer('alice').evmPrivateKey,
      chain: walletChain,
      announce: { name: 'Amber Wallet', rdns: 'example.amber', icon: iconDataUri('#b45309') },
    });
    const blue = await injectDevnetWallet(page, {
      privateKey: buyer('bob').evmPrivateKey,
      chain: walletChain,
      announce: { name: 'Blue Wallet', rdns: 'example.blue', icon: iconDataUri('#1d4ed8') },
    });
    await page.goto(gatewayUrl);

    const buttons = page.locator('#wallet-list button');
    await expect.poll(() => buttons.allTextContents()).toEqual(['Pay with Amber Wallet', 'Pay with Blue Wallet']);
    const icons = await page.locator('#wallet-list button img').evaluateAll((images) =>
      (images as HTMLImageElement[]).map((image) => ({
        src: image.src.slice(0, 26),
        alt: image.alt,
        loaded: image.naturalWidth > 0,
      })),
    );
    expect(icons).toEqual([
      { src: 'data:image/svg+xml;base64,', alt: '', loaded: true },
      { src: 'data:image/svg+xml;base64,', alt: '', loaded: true },
    ]);
    expect(await page.getByRole('group', { name: `Pay 10 USDC on ${chain.name} with` }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Pay with a browser wallet' }).count()).toBe(0);
    expect(await boxOnScreen(page, '#wallet-list button', SCREENS.phone.height)).toBe(true);
    await saveScreenshots(page, 'eip6963-two-wallets', SCREENS);

    // Keyboard only: Tab to the accepted list, arrows to USDT and back to USDC, Tab to the second wallet, Enter.
    const focused = () =>
      page.evaluate(
        () => document.activeElement?.textContent || (document.activeElement as HTMLInputElement | null)?.value || '',
      );
    const usdcRadio = page.getByRole('radio', { name: `10 USDC ${chain.name}` });
    for (
      let presses = 0;
      presses < 15 && !(await usdcRadio.evaluate((radio) => radio === document.activeElement));
      presses++
    ) {
      await page.keyboard.press('Tab');
    }
    expect(await usdcRadio.evaluate((radio) => radio === document.activeElement)).toBe(true);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await page.getByRole('radio', { name: `10 USDT ${chain.name}` }).isChecked()).toBe(true);
    await expect.poll(() => page.locator('#pay-with-title').textContent()).toBe(`Pay 10 USDT on ${chain.name} with`);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await usdcRadio.isChecked()).toBe(true);
    const blueButton = page.getByRole('button', { name: 'Pay with Blue Wallet' });
    for (
      let presses = 0;
      presses < 5 && !(await blueButton.evaluate((button) => button === document.activeElement));
      presses++
    ) {
      await page.keyboard.press('Tab');
    }
    expect(await focused()).toBe('Pay with Blue Wallet');
    expect(await blueButton.evaluate((button) => getComputedStyle(button).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');

    await expect.poll(() => visibleHeading(page).textContent(), { timeout: 45_000 }).toBe('Payment complete');
    expect(amber.calls).toEqual([]);
    expect(blue.calls).toContain('eth_requestAccounts');
    expect(blue.calls).toContain('eth_signTypedData_v4');
    const payment = await call(server, `/v1/payments/${paymentId}`, {
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
    });
    expect(payment.body.status).toBe('succeeded');
    expect(payment.body.buyer.accountCaip10.toLowerCase()).toBe(`${chain.caip2}:${blue.address}`.toLowerCase());
    expect(await page.locator('#paid-with').textContent()).toBe(`Paid with 10 USDC on ${chain.name}.`);
    await saveScreenshots(page, 'eip6963-paid', SCREENS);
    await context.close();
  });

  it('says so when the connected account cannot pay the pick, and the buyer can pick another wallet', async () => {
    const { gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
    const { context, page } = await newPage();
    const chain = devnet.manifest.evm[0]!;
    const walletChain = { chainId: chain.chainId, rpcUrl: chain.rpcUrl, name: chain.name };
    await injectDevnetWallet(page, {
      privateKey: buyer('dave').evmPrivateKey,
      chain: walletChain,
      announce: { name: 'Empty Wallet', rdns: 'example.empty', icon: iconDataUri('#6b7280') },
    });
    await page.goto(gatewayUrl);
    await page.getByRole('button', { name: 'Pay with Empty Wallet' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain(`does not hold enough to pay 10 USDC on ${chain.name}`);
    expect(
      await page.getByRole('button', { name: 'Try again' }).evaluate((button) => button === document.activeElement),
    ).toBe(true);
    // The list and the wallets stay usable beside the explanation.
    expect(await page.getByRole('radio', { name: `10 USDT ${chain.name}` }).isEnabled()).toBe(true);
    await saveScreenshots(page, 'wallet-account-cannot-pay', SCREENS);
    for (const screen of Object.values(SCREENS)) {
      await page.setViewportSize(screen);
      const weak = (await textColours(page)).filter(({ color, background }) => contrastRatio(color, background) < 4.5);
      expect(weak).toEqual([]);
    }
    await context.close();
  });

  it('pays a Solana option with a Wallet Standard wallet, after a declined signature; the page turns to success by itself', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const { context, page } = await newPage();
    const solana = devnet.manifest.solana;
    const violet = await injectSolanaWallet(page, {
      secretKey: buyer('bob').solanaSecretKey,
      name: 'Violet',
      icon: iconDataUri('#6d28d9'),
      rejectSignatureOnce: true,
    });
    await injectSolanaWallet(page, {
      secretKey: buyer('alice').solanaSecretKey,
      name: 'Sender Only',
      icon: iconDataUri('#0f766e'),
      signAndSendOnly: true,
    });
    // An EVM wallet is there too; it is not offered for a Solana pick.
    await injectDevnetWallet(page, {
      privateKey: buyer('alice').evmPrivateKey,
      chain: {
        chainId: devnet.manifest.evm[0]!.chainId,
        rpcUrl: devnet.manifest.evm[0]!.rpcUrl,
        name: devnet.manifest.evm[0]!.name,
      },
      announce: { name: 'Amber Wallet', rdns: 'example.amber', icon: iconDataUri('#b45309') },
    });
    await page.goto(gatewayUrl);
    await page.getByRole('button', { name: /^Show all \d+ ways to pay$/ }).click();
    await page.getByRole('radio', { name: `10 USDC ${solana.name}` }).check();

    const buttons = page.locator('#wallet-list button');
    await expect.poll(() => buttons.allTextContents()).toEqual(['Pay with Violet', 'Pay with Sender Only']);
    const senderOnly = page.getByRole('button', { name: 'Pay with Sender Only' });
    expect(await senderOnly.isDisabled()).toBe(true);
    const noteId = await senderOnly.getAttribute('aria-describedby');
    expect(await page.locator(`#${noteId}`).textContent()).toBe(
      'Sender Only signs only by sending the transaction itself, which this payment cannot use.',
    );
    await saveScreenshots(page, 'wallet-standard-solana', SCREENS);

    // The buyer declines the first signature: explained, nothing paid; trying again pays.
    await page.getByRole('button', { name: 'Pay with Violet' }).click();
    const alert = page.getByRole('alert');
    await expect
      .poll(() => alert.textContent())
      .toContain('You declined the request in your wallet, so nothing was paid');
    expect(
      (await call(server, `/v1/gateway/payment/${paymentId}/status`, { headers: walletHeaders })).body.status,
    ).toBe('requires_action');
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => visibleHeading(page).textContent(), { timeout: 45_000 }).toBe('Payment complete');
    expect(violet.calls).toEqual(['standard:connect', 'standard:connect', 'solana:signTransaction']);
    const payment = await call(server, `/v1/payments/${paymentId}`, {
      headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
    });
    expect(payment.body.status).toBe('succeeded');
    expect(payment.body.buyer.accountCaip10).toBe(`${solana.caip2}:${violet.address}`);
    expect(await page.locator('#paid-with').textContent()).toBe(`Paid with 10 USDC on ${solana.name}.`);
    await saveScreenshots(page, 'wallet-standard-solana-paid', SCREENS);
    await context.close();
  });
});
