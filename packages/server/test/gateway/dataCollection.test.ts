import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Devnet } from '@paygate/devnet';
import type { Browser, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBuyerData } from '../../src/gateway/dataCollection/buyerData.ts';
import { setPartnerDataThreshold } from '../../src/gateway/dataCollection/thresholdSettings.ts';
import { DataEncryptionKey } from '../../src/dataEncryptionKey.ts';
import { createApp } from '../../src/partners/partners.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { ManualClock } from '../support/manualClock.ts';
import { runCli } from '../support/serverProcess.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';
import { launchChromium, saveScreenshots } from '../checkout/support/browser.ts';
import { seriousAxeViolations } from '../dashboard/support/dashboardBrowser.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';

/** Each host bridge as a wallet would install it, reporting what it receives to the test through `__record`. */
const BRIDGES = {
  reactNative: `window.ReactNativeWebView = { postMessage: (message) => window.__record('reactNative', message) };`,
  webkit: `window.webkit = { messageHandlers: { payDataCollectionComplete: { postMessage: (message) => window.__record('webkit', message) } } };`,
  android: `window.AndroidWallet = { onDataCollectionComplete: (message) => window.__record('android', message) };`,
} as const;

const ANSWERS = { fullName: 'Ada Lovelace', dateOfBirth: '1990-12-10', placeOfResidence: 'London, United Kingdom' };

async function signTypedDataAsWallet(privateKey: `0x${string}`, params: string): Promise<string> {
  const [, json] = JSON.parse(params) as [string, string];
  return privateKeyToAccount(privateKey).signTypedData(JSON.parse(json));
}

describe('buyer data collection (D14)', () => {
  let testService: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let walletHeaders: Record<string, string>;
  let browser: Browser;
  let hostPage: http.Server;
  let hostUrl: string;
  const keyHex = randomBytes(32).toString('hex');
  const key = DataEncryptionKey.parse(keyHex, 'test key');
  const clock = new ManualClock();
  const cliEnv = () => ({ DATABASE_URL: testService.databaseUrl });

  const buyer = (name: string) => {
    const found = devnet.manifest.buyers.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no devnet buyer ${name}`);
    return found;
  };
  const evmAccount = (name: string) => `${devnet.manifest.evm[0]!.caip2}:${buyer(name).evmAddress}`;
  const gateway = (paymentId: string, suffix: string, body?: unknown) =>
    call(
      server,
      `/v1/gateway/payment/${paymentId}${suffix}`,
      body === undefined ? { headers: walletHeaders } : { method: 'POST', headers: walletHeaders, body },
    );
  const newPayment = (body: Record<string, unknown> = {}) => createPayment(server, partner.apiKey, merchantId, body);

  async function usdcOption(paymentId: string, account = evmAccount('alice')) {
    const options = await gateway(paymentId, '/options', { accounts: [account] });
    expect(options.status, options.text).toBe(200);
    const option = options.body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    return { option, response: options.body };
  }

  async function cli(args: string[]) {
    const result = await runCli(args, cliEnv());
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  }

  beforeAll(async () => {
    testService = await startDevnetService({
      prices: { 'EURC/USD': '1.087', 'USDC/EUR': '0.92' },
      clock,
      env: { DATA_ENCRYPTION_KEY: keyHex },
    });
    ({ devnet, server } = testService);
    partner = await newPartner(server.db, 'Data partner');
    merchantId = (await createMerchant(server, partner.apiKey)).id;
    // 5.00 USD: every 10.00 USD test payment of this partner asks for buyer data.
    await setPartnerDataThreshold(server.db, partner.partnerId, { currency: 'USD', amount: 500n });
    const app = await createApp(server.db, partner.partnerId, 'Test Wallet');
    walletHeaders = { 'app-id': app.appId, 'client-id': 'device-1' };
    browser = await launchChromium();
    // A web wallet on another origin that shows the form in an iframe.
    hostPage = http.createServer((request, response) => {
      const formUrl = new URL(request.url ?? '/', 'http://host').searchParams.get('form') ?? '';
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>Web wallet</title>
<script>window.addEventListener('message', (event) => window.__record('parent', event.data, event.origin));</script>
<iframe title="Your details" src="${formUrl.replace(/"/g, '&quot;')}" width="600" height="900"></iframe>`);
    });
    await new Promise<void>((resolve) => hostPage.listen(0, '127.0.0.1', resolve));
    hostUrl = `http://127.0.0.1:${(hostPage.address() as AddressInfo).port}`;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => hostPage?.close(resolve));
    await testService?.close();
  });

  /** A browser page whose bridge calls land in `signals`, in order. */
  async function walletPage(
    bridgeScripts: string[],
  ): Promise<{ page: Page; signals: { bridge: string; message: unknown; origin?: string }[] }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const signals: { bridge: string; message: unknown; origin?: string }[] = [];
    await page.exposeFunction('__record', (bridge: string, message: unknown, origin?: string) => {
      signals.push({ bridge, message, ...(origin ? { origin } : {}) });
    });
    for (const script of bridgeScripts) await page.addInitScript(script);
    return { page, signals };
  }

  async function fillForm(form: Page | ReturnType<Page['frameLocator']>) {
    await form.getByLabel('Full name').fill(ANSWERS.fullName);
    await form.getByLabel('Date of birth').fill(ANSWERS.dateOfBirth);
    await form.getByLabel('Place of residence').fill(ANSWERS.placeOfResidence);
    await form.getByLabel('I accept the terms of this payment').check();
    await form.getByRole('button', { name: 'Continue' }).click();
  }

  async function waitForSignals(signals: unknown[], count: number) {
    await expect.poll(() => signals.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  }

  it('is set per partner and overridden per merchant by the operator CLI, with other currencies converted', async () => {
    const own = await newPartner(server.db, 'Threshold partner');
    const ownMerchantId = (await createMerchant(server, own.apiKey)).id;
    const { paymentId } = await createPayment(server, own.apiKey, ownMerchantId);
    expect((await usdcOption(paymentId)).response.collectData).toBeNull();

    expect(await cli(['partner', 'set-data-threshold', own.partnerId, 'USD:500'])).toEqual({
      partnerId: own.partnerId,
      dataThreshold: 'USD:500',
    });
    const { option, response } = await usdcOption(paymentId);
    expect(response.collectData).toMatchObject({
      url: expect.stringMatching(`^${server.url}/collect/`),
      schema: { type: 'object' },
    });
    expect(option.collectData.url).toMatch(new RegExp(`^${server.url}/collect/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$`));
    expect(option.collectData.url).not.toBe(response.collectData.url);
    expect(Object.keys(option.collectData.schema.properties)).toEqual([
      'fullName',
      'dateOfBirth',
      'placeOfBirth',
      'placeOfResidence',
      'termsAccepted',
    ]);
    // The deprecated list WalletConnect Pay's document still requires, for wallets that read it.
    const fields = [
      { id: 'fullName', name: 'Full name', type: 'text', required: true },
      { id: 'dateOfBirth', name: 'Date of birth', type: 'date', required: true },
      { id: 'placeOfBirth', name: 'Place of birth', type: 'text', required: false },
      { id: 'placeOfResidence', name: 'Place of residence', type: 'text', required: false },
      { id: 'termsAccepted', name: 'I accept the terms of this payment', type: 'checkbox', required: true },
    ];
    expect(option.collectData.fields).toEqual(fields);
    expect(response.collectData.fields).toEqual(fields);
    const stored = await server.db
      .selectFrom('payment_options')
      .select('requires_buyer_data')
      .where('id', '=', option.id)
      .executeTakeFirstOrThrow();
    expect(stored.requires_buyer_data).toBe(true);

    const merchant = (setting: string) => cli(['merchant', 'set-data-threshold', ownMerchantId, setting]);
    expect(await merchant('none')).toEqual({ merchantId: ownMerchantId, dataThreshold: 'none' });
    expect((await usdcOption(paymentId)).option.collectData).toBeNull();
    expect(await merchant('USD:1000')).toEqual({ merchantId: ownMerchantId, dataThreshold: 'USD:1000' });
    expect((await usdcOption(paymentId)).response.collectData).toBeNull();
    expect(await merchant('inherit')).toEqual({ merchantId: ownMerchantId, dataThreshold: 'inherit' });
    expect((await usdcOption(paymentId)).response.collectData).not.toBeNull();

    // USD:500 against EUR payments, at 0.92 EUR per USD: 4.60 EUR is at the threshold, 4.61 EUR above it.
    const at = await createPayment(server, own.apiKey, ownMerchantId, {
      amount: { unit: 'iso4217/EUR', value: '460' },
    });
    const above = await createPayment(server, own.apiKey, ownMerchantId, {
      amount: { unit: 'iso4217/EUR', value: '461' },
    });
    expect((await gateway(at.paymentId, '/options', { accounts: [evmAccount('alice')] })).body.collectData).toBeNull();
    expect(
      (await gateway(above.paymentId, '/options', { accounts: [evmAccount('alice')] })).body.collectData,
    ).not.toBeNull();

    const refused = await runCli(['partner', 'set-data-threshold', own.partnerId, 'USD:1.5'], cliEnv());
    expect([refused.code, refused.stderr]).toEqual([
      1,
      expect.stringContaining('a threshold is <CURRENCY>:<minor units>'),
    ]);
    const unknown = await runCli(['merchant', 'set-data-threshold', 'mer_missing', 'none'], cliEnv());
    expect([unknown.code, unknown.stderr]).toEqual([1, 'paygate: merchant mer_missing does not exist\n']);
    // Six operator commands, each a process of its own.
  }, 240_000);

  it('refuses a confirm without data or with invalid data (400 with issues), leaving the payment payable; valid data pays and is stored encrypted', async () => {
    const { paymentId } = await newPayment();
    const { option } = await usdcOption(paymentId, evmAccount('bob'));
    expect(option.collectData).not.toBeNull();
    const signature = await signTypedDataAsWallet(buyer('bob').evmPrivateKey, option.actions[0].data.params);
    const results = [{ type: 'walletRpc', data: [signature] }];

    const without = await gateway(paymentId, '/confirm', { optionId: option.id, results });
    expect(without.status).toBe(400);
    expect(expectErrorBody(without)).toMatchObject({ code: 'params_validation', issues: [{ field: 'collectedData' }] });

    const invalid = await gateway(paymentId, '/confirm', {
      optionId: option.id,
      results,
      collectedData: {
        fields: [
          { id: 'fullName', value: '  ' },
          { id: 'dateOfBirth', value: '2999-01-01' },
          { id: 'termsAccepted', value: false },
          { id: 'iban', value: 'x' },
        ],
      },
    });
    expect(invalid.status).toBe(400);
    const issues = expectErrorBody(invalid).issues ?? [];
    expect(Object.fromEntries(issues.map((issue) => [issue.field, issue.message]))).toEqual({
      'collectedData.fullName': 'Enter your full name',
      'collectedData.dateOfBirth': 'A date of birth must be in the past',
      'collectedData.termsAccepted': 'Accept the terms to continue',
      'collectedData.placeOfBirth': 'Enter your place of birth or your place of residence',
      'collectedData.iban': 'is not a field of this form',
    });
    expect((await gateway(paymentId, '/status')).body.status).toBe('requires_action');
    expect(
      await server.db.selectFrom('buyer_data').select('scope').where('payment_id', '=', paymentId).execute(),
    ).toEqual([]);

    const fields = [
      { id: 'fullName', value: ANSWERS.fullName },
      { id: 'dateOfBirth', value: ANSWERS.dateOfBirth },
      { id: 'placeOfBirth', value: 'Marylebone, London' },
      { id: 'termsAccepted', value: true },
    ];
    const paid = await gateway(paymentId, '/confirm?maxPollMs=20000', {
      optionId: option.id,
      results,
      collectedData: { fields },
    });
    expect(paid.status, paid.text).toBe(200);
    const final =
      paid.body.status === 'succeeded' ? paid.body : (await gateway(paymentId, '/status?maxPollMs=20000')).body;
    expect(final).toMatchObject({ status: 'succeeded', info: { txId: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });

    const row = await server.db
      .selectFrom('buyer_data')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ scope: evmAccount('bob'), source: 'confirm', key_id: key.id });
    for (const clear of ['Ada', 'Lovelace', '1990-12-10', 'Marylebone'])
      expect(row.ciphertext.includes(Buffer.from(clear))).toBe(false);
    expect(await readBuyerData(server.db, key, paymentId, evmAccount('bob'))).toEqual({
      fullName: 'Ada Lovelace',
      dateOfBirth: '1990-12-10',
      placeOfBirth: 'Marylebone, London',
      termsAccepted: true,
    });
  });

  it('shows an accessible form under a strict policy; errors are tied to their fields and signal nothing', async () => {
    const { paymentId } = await newPayment();
    const { option } = await usdcOption(paymentId);
    const raw = await fetch(option.collectData.url);
    expect(raw.status).toBe(200);
    const csp = raw.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(raw.headers.get('x-frame-options')).toBeNull();
    expect(raw.headers.get('cache-control')).toBe('no-store');
    const html = await raw.text();
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="assets/collect-form.js" defer>']);
    expect(html).not.toMatch(/ on[a-z]+=/);

    const { page, signals } = await walletPage([BRIDGES.reactNative]);
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(option.collectData.url);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForLoadState();
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    const fullName = page.getByLabel('Full name');
    expect(await fullName.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await fullName.getAttribute('aria-describedby')) ?? '';
    const description = await page.evaluate(
      (ids) =>
        ids
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent)
          .join(' '),
      describedBy,
    );
    expect(description).toContain('Enter your full name');
    expect(await page.getByRole('group', { name: 'Place of birth or Place of residence (at least one)' }).count()).toBe(
      1,
    );
    expect(await page.title()).toMatch(/^Error: /);
    // As readable in the dark as the checkout page that frames it.
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await seriousAxeViolations(page), colorScheme).toEqual([]);
      expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(
        colorScheme === 'dark' ? 'rgb(26, 29, 36)' : 'rgb(255, 255, 255)',
      );
      await saveScreenshots(page, `details-form-errors-${colorScheme}`);
    }
    await page.emulateMedia({ colorScheme: null });
    await page.getByLabel('Full name').fill(ANSWERS.fullName);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForLoadState();
    // The answer given is kept; the others are still asked for.
    expect(await page.getByLabel('Full name').inputValue()).toBe(ANSWERS.fullName);
    expect(await page.getByLabel('Full name').getAttribute('aria-invalid')).toBeNull();
    expect(signals).toEqual([]);
    expect(violations).toEqual([]);
    await page.context().close();
  });

  for (const bridge of Object.keys(BRIDGES) as (keyof typeof BRIDGES)[]) {
    it(`signals IC_COMPLETE through the ${bridge} bridge after the form is submitted`, async () => {
      const { paymentId } = await newPayment();
      const { option } = await usdcOption(paymentId);
      const { page, signals } = await walletPage([BRIDGES[bridge]]);
      await page.goto(option.collectData.url);
      await fillForm(page);
      await waitForSignals(signals, 1);
      const expected = { type: 'IC_COMPLETE', success: true };
      // Strings where the host API takes strings (React Native, Android); an object for WebKit.
      expect(signals).toEqual([{ bridge, message: bridge === 'webkit' ? expected : JSON.stringify(expected) }]);
      await expect.poll(() => page.getByRole('heading', { name: 'Details received' }).count()).toBe(1);
      await page.context().close();
      expect(await readBuyerData(server.db, key, paymentId, evmAccount('alice'))).toEqual({
        ...ANSWERS,
        termsAccepted: true,
      });
    });
  }

  it('signals IC_COMPLETE to a parent window framing the form, and then the confirm needs no data and pays', async () => {
    const { paymentId } = await newPayment();
    const { option } = await usdcOption(paymentId);
    const { page, signals } = await walletPage([]);
    await page.goto(`${hostUrl}/?form=${encodeURIComponent(option.collectData.url)}`);
    await fillForm(page.frameLocator('iframe'));
    await waitForSignals(signals, 1);
    expect(signals).toEqual([
      { bridge: 'parent', message: { type: 'IC_COMPLETE', success: true }, origin: new URL(server.url).origin },
    ]);
    await page.context().close();

    const row = await server.db
      .selectFrom('buyer_data')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ scope: evmAccount('alice'), source: 'form' });
    expect(row.ciphertext.includes(Buffer.from('Lovelace'))).toBe(false);

    // Options asked again: this account's data is in, so its options need none; the payment as a whole still did.
    const again = await usdcOption(paymentId);
    expect(again.option.collectData).toBeNull();
    expect(again.response.collectData).not.toBeNull();

    // Another account of the same payment has given nothing.
    const { option: erinOption } = await usdcOption(paymentId, evmAccount('erin'));
    const erinSignature = await signTypedDataAsWallet(buyer('erin').evmPrivateKey, erinOption.actions[0].data.params);
    const erinConfirm = await gateway(paymentId, '/confirm', {
      optionId: erinOption.id,
      results: [{ type: 'walletRpc', data: [erinSignature] }],
    });
    expect([erinConfirm.status, expectErrorBody(erinConfirm).code]).toEqual([400, 'params_validation']);

    const signature = await signTypedDataAsWallet(buyer('alice').evmPrivateKey, option.actions[0].data.params);
    const paid = await gateway(paymentId, '/confirm?maxPollMs=20000', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signature] }],
    });
    expect(paid.status, paid.text).toBe(200);
    const final =
      paid.body.status === 'succeeded' ? paid.body : (await gateway(paymentId, '/status?maxPollMs=20000')).body;
    expect(final.status).toBe('succeeded');

    // The link of a paid payment is refused.
    const closed = await fetch(option.collectData.url);
    expect(closed.status).toBe(409);
    expect(await closed.text()).toContain('This payment can no longer be paid');
  });

  it('takes data once for the whole payment through the top-level form, after which any account confirms without it', async () => {
    const { paymentId } = await newPayment();
    const { response } = await usdcOption(paymentId);
    const posted = await fetch(response.collectData.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...ANSWERS, termsAccepted: 'on' }),
    });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain('Details received');
    expect(await readBuyerData(server.db, key, paymentId, '*')).toEqual({ ...ANSWERS, termsAccepted: true });

    const { option, response: after } = await usdcOption(paymentId, evmAccount('erin'));
    expect(option.collectData).toBeNull();
    expect(after.collectData).not.toBeNull();
    // The data requirement is met, so what is refused is the (deliberately forged) signature.
    const forged = await privateKeyToAccount(generatePrivateKey()).signTypedData(
      JSON.parse(JSON.parse(option.actions[0].data.params)[1]),
    );
    const refused = await gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [forged] }],
    });
    expect(expectErrorBody(refused)).toMatchObject({
      code: 'invalid_params',
      details: { reason: 'invalid_signature' },
    });
  });

  it('refuses forged, altered, other-account and expired links with a clear page and IC_ERROR, storing nothing', async () => {
    const { paymentId, expiresAt } = await newPayment();
    const { option } = await usdcOption(paymentId);
    const url = new URL(option.collectData.url);
    const [payload, mac] = url.pathname.split('/').at(-1)!.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const otherAccount = Buffer.from(JSON.stringify({ ...claims, s: evmAccount('bob') })).toString('base64url');
    const signer = server.ctx.formTokens;
    const expired = signer.sign({
      paymentId,
      scope: evmAccount('alice'),
      expiresAt: Math.floor(Date.now() / 1000) - 1,
    });
    expect(claims).toEqual({ p: paymentId, s: evmAccount('alice'), e: expiresAt });

    const cases = [
      {
        token: `${payload}.${mac.slice(0, -2)}AA`,
        status: 403,
        heading: 'This link is not valid',
        reason: 'invalid_link',
      },
      { token: `${otherAccount}.${mac}`, status: 403, heading: 'This link is not valid', reason: 'invalid_link' },
      { token: 'not-a-token', status: 403, heading: 'This link is not valid', reason: 'invalid_link' },
      { token: expired, status: 410, heading: 'This link has expired', reason: 'link_expired' },
    ];
    for (const { token, status, heading, reason } of cases) {
      const link = `${server.url}/collect/${token}`;
      const shown = await fetch(link);
      expect([token, shown.status]).toEqual([token, status]);
      const html = await shown.text();
      expect(html).toContain(`<h1 tabindex="-1" autofocus>${heading}</h1>`);
      expect(html).not.toContain('<form');
      const posted = await fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...ANSWERS, termsAccepted: 'on' }),
      });
      expect(posted.status).toBe(status);

      const { page, signals } = await walletPage([BRIDGES.android]);
      await page.goto(link);
      await waitForSignals(signals, 1);
      expect(signals).toEqual([
        { bridge: 'android', message: JSON.stringify({ type: 'IC_ERROR', success: false, reason }) },
      ]);
      await page.context().close();
    }
    expect(
      await server.db.selectFrom('buyer_data').select('scope').where('payment_id', '=', paymentId).execute(),
    ).toEqual([]);
  });

  it('answers 503 when buyer data is due but no encryption key is configured', async () => {
    const keyless = await startTestServer({ databaseUrl: testService.databaseUrl });
    try {
      const { paymentId } = await createPayment(keyless, partner.apiKey, merchantId);
      const options = await call(keyless, `/v1/gateway/payment/${paymentId}/options`, {
        method: 'POST',
        headers: walletHeaders,
        body: { accounts: [evmAccount('alice')] },
      });
      expect([options.status, expectErrorBody(options).code]).toEqual([503, 'service_unavailable']);
    } finally {
      await keyless.close();
    }
  });
});
