import type { Devnet } from '@paygate/devnet';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorAddresses } from '../../src/chains/collectorKeys.ts';
import { withSolanaPayTables } from '../../src/chains/solana/solanaPayTables.ts';
import { createApp } from '../../src/partners/partners.ts';
import { type ParsedTransferRequest, parseTransferRequestUri } from '../../src/solanaPay/transferRequestUri.ts';
import { decodeQr, launchChromium, saveScreenshots } from '../checkout/support/browser.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';
import { payAsWallet } from './support.ts';
import { auditOfMerchant } from '../support/ledgerAudit.ts';

const SCREENS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

describe('Solana Pay transfer requests on the checkout page, paid by a plain wallet on the devnet', () => {
  let testService: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let browser: Browser;
  let collector: string;
  let usdcMint: string;

  const buyer = (name: string) => {
    const found = devnet.manifest.buyers.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no devnet buyer ${name}`);
    return found;
  };
  const merchantHeaders = () => ({ 'api-key': partner.apiKey, 'merchant-id': merchantId });
  const paymentOf = async (paymentId: string) =>
    (await call(server, `/v1/payments/${paymentId}`, { headers: merchantHeaders() })).body;
  const transfersOf = (paymentId: string) =>
    withSolanaPayTables(server.db)
      .selectFrom('solana_pay_transfers')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .execute();

  /** The USDC transfer request the checkout page shows for the payment, read from its HTML as a crawler would. */
  async function transferRequestOnPage(gatewayUrl: string): Promise<ParsedTransferRequest> {
    const page = await (await fetch(gatewayUrl)).text();
    const uris = [...page.matchAll(/value="(solana:[^"]+)"/g)].map((match) =>
      parseTransferRequestUri((match[1] as string).replaceAll('&amp;', '&')),
    );
    const request = uris.find((uri) => uri?.splToken === usdcMint);
    if (!request) throw new Error(`no USDC Solana Pay request on ${gatewayUrl}`);
    return request;
  }

  beforeAll(async () => {
    testService = await startDevnetService({ prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' } });
    ({ devnet, server } = testService);
    collector = (await collectorAddresses(testService.keys)).solana;
    const usdc = devnet.manifest.solana.tokens.find((token) => token.symbol === 'USDC');
    if (!usdc) throw new Error('no USDC on the Solana devnet');
    usdcMint = usdc.address;
    partner = await newPartner(server.db);
    merchantId = (
      await createMerchant(server, partner.apiKey, {
        merchantName: 'Corner Shop',
        merchantEmail: 'owner@corner-shop.com',
      })
    ).id;
    await createApp(server.db, partner.partnerId, 'Test Wallet');
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await testService?.close();
  });

  it('shows the request of the picked Solana token as a QR code and text; a plain wallet pays it and the page turns to success by itself', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const solana = devnet.manifest.solana;
    const context = await browser.newContext({ viewport: SCREENS.phone, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(gatewayUrl);
    const panel = page.locator('.solana-pay[data-pay-panel]:not([hidden])');
    // Another token first: no Solana Pay panel until the buyer picks a Solana token.
    await page.locator('input[name="accepted"][data-namespace="eip155"]').first().check();
    await expect.poll(() => panel.count()).toBe(0);
    // The devnet's two EVM chains list more ways to pay than a phone's first screen shows: the rest are a click away.
    await page.getByRole('button', { name: /^Show all \d+ ways to pay$/ }).click();
    await page.getByRole('radio', { name: `10 USDC ${solana.name}` }).check();
    await expect.poll(() => panel.count()).toBe(1);
    expect(await panel.locator('h3').textContent()).toBe('Pay 10 USDC from any Solana wallet');

    // The panel was just shown: read its QR code once it is drawn whole.
    let uri: string | undefined;
    await expect
      .poll(async () => {
        uri = await decodeQr(await panel.locator('figure.qr svg').screenshot());
        return uri;
      })
      .toBeDefined();
    // The same request opens in a wallet on this device, and is there to copy.
    expect(await panel.locator('a[data-solana-pay-uri]').getAttribute('href')).toBe(uri);
    expect(await panel.getByRole('button', { name: 'Copy the Solana Pay request' }).getAttribute('value')).toBe(uri);
    const request = parseTransferRequestUri(uri as string);
    const [stored] = await withSolanaPayTables(server.db)
      .selectFrom('solana_pay_requests')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .execute();
    // From the request on, the payment's expiry waits for the Solana Pay follower.
    expect(
      (
        await server.db
          .selectFrom('payments')
          .select('expiry_awaits_follower')
          .where('id', '=', paymentId)
          .executeTakeFirstOrThrow()
      ).expiry_awaits_follower,
    ).toBe(true);
    expect(request).toEqual({
      recipient: collector,
      amount: '10',
      splToken: usdcMint,
      references: [stored?.reference],
      label: 'Corner Shop',
      message: `Payment ${paymentId}`,
      memo: undefined,
    });
    await saveScreenshots(page, 'solana-pay-request', SCREENS);

    const signature = await payAsWallet(solana.rpcUrl, buyer('bob').solanaSecretKey, [{ request: request! }]);
    await expect
      .poll(() => page.locator('[data-view]:not([hidden]) h2').textContent(), { timeout: 45_000 })
      .toBe('Payment complete');
    const payment = await paymentOf(paymentId);
    expect(payment.status).toBe('succeeded');
    expect(payment.buyer.accountCaip10).toBe(`${solana.caip2}:${buyer('bob').solanaAddress}`);
    const row = await server.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      tx_hash: signature,
      token_value: '10000000',
      network: solana.caip2,
      buyer_account: `${solana.caip2}:${buyer('bob').solanaAddress}`,
    });
    expect(await transfersOf(paymentId)).toMatchObject([
      { signature, outcome: 'paid', amount: '10000000', mint: usdcMint, buyer: buyer('bob').solanaAddress },
    ]);
    await saveScreenshots(page, 'solana-pay-paid', SCREENS);
    await context.close();
  });

  it('records a transfer of less than asked as underpaid and leaves the payment payable; the exact amount then pays it, the first kept apart as overpaid', async () => {
    const { gatewayUrl, paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const request = await transferRequestOnPage(gatewayUrl);
    const short = await payAsWallet(devnet.manifest.solana.rpcUrl, buyer('alice').solanaSecretKey, [
      { request, amount: 9_990_000n },
    ]);
    await expect.poll(() => transfersOf(paymentId), { timeout: 30_000 }).toHaveLength(1);
    expect(await transfersOf(paymentId)).toMatchObject([
      { signature: short, outcome: 'wrong_amount', amount: '9990000', mint: usdcMint },
    ]);
    const waiting = await paymentOf(paymentId);
    expect(waiting.status).toBe('requires_action');
    expect(waiting.exceptions).toEqual([
      expect.objectContaining({ type: 'underpaid', amount: expect.objectContaining({ value: '9990000' }) }),
    ]);

    const exact = await payAsWallet(devnet.manifest.solana.rpcUrl, buyer('alice').solanaSecretKey, [{ request }]);
    await expect.poll(async () => (await paymentOf(paymentId)).status, { timeout: 30_000 }).toBe('succeeded');
    const row = await server.db.selectFrom('payments').select('tx_hash').where('id', '=', paymentId).executeTakeFirst();
    expect(row?.tx_hash).toBe(exact);
    const paid = await paymentOf(paymentId);
    expect(paid.tokenAmount.value).toBe('10000000');
    expect(paid.exceptions).toEqual([
      expect.objectContaining({ type: 'overpaid', amount: expect.objectContaining({ value: '9990000' }) }),
    ]);
  });

  it('pays one payment with one transfer, even when it carries the references of two', async () => {
    const first = await createPayment(server, partner.apiKey, merchantId);
    const second = await createPayment(server, partner.apiKey, merchantId);
    const requests = [await transferRequestOnPage(first.gatewayUrl), await transferRequestOnPage(second.gatewayUrl)];
    const references = requests.flatMap((request) => request.references);
    expect(new Set(references).size).toBe(2);
    const signature = await payAsWallet(devnet.manifest.solana.rpcUrl, buyer('alice').solanaSecretKey, [
      { request: { ...(requests[0] as ParsedTransferRequest), references } },
    ]);
    const statuses = async () =>
      [(await paymentOf(first.paymentId)).status, (await paymentOf(second.paymentId)).status].sort();
    await expect.poll(statuses, { timeout: 30_000 }).toContain('succeeded');
    expect(await statuses()).toEqual(['requires_action', 'succeeded']);
    const recorded = await withSolanaPayTables(server.db)
      .selectFrom('solana_pay_transfers')
      .selectAll()
      .where('signature', '=', signature)
      .execute();
    expect(recorded).toHaveLength(1);
  });

  it("does not pay a payment with a transfer that carries another payment's reference", async () => {
    const ours = await createPayment(server, partner.apiKey, merchantId);
    const theirs = await createPayment(server, partner.apiKey, merchantId);
    const ourRequest = await transferRequestOnPage(ours.gatewayUrl);
    const theirRequest = await transferRequestOnPage(theirs.gatewayUrl);
    expect(theirRequest.references).not.toEqual(ourRequest.references);
    // Everything of ours but their reference: it pays theirs, never ours.
    await payAsWallet(devnet.manifest.solana.rpcUrl, buyer('bob').solanaSecretKey, [
      { request: { ...ourRequest, references: theirRequest.references } },
    ]);
    await expect.poll(async () => (await paymentOf(theirs.paymentId)).status, { timeout: 30_000 }).toBe('succeeded');
    expect((await paymentOf(ours.paymentId)).status).toBe('requires_action');
    expect(await transfersOf(ours.paymentId)).toEqual([]);
  });

  it("leaves the ledger agreeing with the merchant's records, what a short transfer brought kept for its buyer", async () => {
    const audit = await auditOfMerchant(server.db, merchantId);
    expect(audit.lines.map((line) => line.check)).toEqual(expect.arrayContaining(['merchant', 'buyers']));
    expect(audit.differing).toEqual([]);
  });
});
