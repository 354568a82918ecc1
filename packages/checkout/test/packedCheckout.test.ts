import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync } from 'node:zlib';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../wallet/test/support/browserPage.ts';
import { DevnetBrowserWallet, openWalletPage } from '../../wallet/test/support/devnetBrowserWallet.ts';
import { type DevnetGateway, startDevnetGateway } from '../../wallet/test/support/devnetGateway.ts';
import { type PackedInstall, packAndInstall } from '../../wallet/test/support/packedInstall.ts';
import { createCheckoutHandler } from '../src/server.ts';
import { type RunningServer, serveFetchHandler } from './support/fetchHandlerServer.ts';

const PACKAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A store's Node server in one file: the checkout route from the installed package, and a session paying through it. */
const PAY_SCRIPT = `
import { createServer } from 'node:http';
import { browserTransport, createPaymentSession, FINAL_STAGES } from '@paygate/checkout';
import { evmKeyWallet } from '@paygate/checkout/keys';
import { createCheckoutHandler, nodeListener } from '@paygate/checkout/server';

const { baseUrl, apiKey, paymentId, evmChain, evmKey, rpcUrls } = JSON.parse(process.argv[2]);
const server = createServer(nodeListener(createCheckoutHandler({ baseUrl, apiKey, basePath: '/api/checkout' })));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const endpoint = 'http://127.0.0.1:' + server.address().port + '/api/checkout';
const session = createPaymentSession(paymentId, { transport: browserTransport({ endpoint }) });
const settled = (done) => new Promise((resolve) => {
  const check = () => done(session.getSnapshot()) && resolve(session.getSnapshot());
  session.subscribe(check);
  check();
});
session.start();
await settled((snapshot) => snapshot.stage === 'connect');
await session.actions.connectWallet(evmKeyWallet({ privateKey: evmKey, rpcUrls }));
const usdc = session.getSnapshot().options.find((option) => option.amount.display?.assetSymbol === 'USDC' && option.account.startsWith(evmChain));
session.actions.chooseOption(usdc.id);
await session.actions.pay();
const outcome = await settled((snapshot) => FINAL_STAGES.has(snapshot.stage));
session.stop();
server.close();
console.log(JSON.stringify(outcome));
`;

/** An integrator's TypeScript against the declarations; the misuses must not compile. */
const CONSUMER_TS = `
import { createPaymentSession, browserTransport, type CheckoutSnapshot, type CheckoutWallet } from '@paygate/checkout';
import { createCheckoutHandler } from '@paygate/checkout/server';
import { evmKeyWallet } from '@paygate/checkout/keys';

const session = createPaymentSession('pay_x', { transport: browserTransport({ endpoint: '/api/checkout' }) });
export const stage: CheckoutSnapshot['stage'] = session.getSnapshot().stage;
export const handler: (request: Request) => Promise<Response> = createCheckoutHandler({ baseUrl: 'https://pay.example', apiKey: 'sk_1' });
export const wallet: CheckoutWallet = evmKeyWallet({ privateKey: '0x01', rpcUrls: {} });
// @ts-expect-error a stage the runtime does not have
export const wrong: CheckoutSnapshot['stage'] = 'paid';
// @ts-expect-error the handler needs the key
createCheckoutHandler({ baseUrl: 'https://pay.example' });
`;

let installed: PackedInstall;
let gw: DevnetGateway;

beforeAll(async () => {
  [installed, gw] = await Promise.all([
    packAndInstall(path.join(PACKAGES, 'checkout'), { 'pay.mjs': PAY_SCRIPT, 'consumer.ts': CONSUMER_TS }, [
      path.join(PACKAGES, 'wallet'),
    ]),
    startDevnetGateway(),
  ]);
}, 300_000);

afterAll(async () => {
  await gw?.close();
  await installed?.remove();
});

describe('the packed @paygate/checkout', () => {
  it('ships its build only, and declares what it needs', async () => {
    for (const file of installed.packedFiles) expect(file).toMatch(/^(dist\/.*\.(js|d\.ts)|package\.json|README\.md)$/);
    for (const entry of ['index', 'server', 'react', 'keyWallets'])
      expect(installed.packedFiles).toContain(`dist/${entry}.js`);
    expect(installed.installWarnings.filter((line) => !line.startsWith('npm warn EBADENGINE'))).toEqual([]);
  });

  it.each(['nodenext', 'bundler'] as const)('type-checks a strict project resolving modules as %s', async (mode) => {
    const { ok, output } = await installed.typecheck(mode);
    expect(output).toBe('');
    expect(ok).toBe(true);
  });

  it('pays a devnet payment from Node: a store route holds the key, a session pays through it', async () => {
    const { paymentId } = await gw.newPayment();
    const buyer = gw.buyer('erin');
    const outcome = JSON.parse(
      await installed.node('pay.mjs', [
        JSON.stringify({
          baseUrl: gw.server.url,
          apiKey: gw.partner.apiKey,
          paymentId,
          evmChain: gw.evmChain,
          evmKey: buyer.evmPrivateKey,
          rpcUrls: gw.rpcUrls,
        }),
      ]),
    );
    expect(outcome).toMatchObject({ stage: 'succeeded', paid: { txId: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
    expect((await gw.listed(paymentId)).transaction.hash).toBe(outcome.paid.txId);
  });
});

describe('a browser bundle of the installed @paygate/checkout', () => {
  let browser: Browser;
  let store: RunningServer;
  let bundle: { code: string; inputs: string[] };

  beforeAll(async () => {
    const bundled = await build({
      stdin: { contents: "export * from '@paygate/checkout';", resolveDir: installed.dir },
      absWorkingDir: installed.dir,
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    bundle = { code: bundled.outputFiles[0]!.text, inputs: Object.keys(bundled.metafile.inputs) };
    const checkoutRoute = createCheckoutHandler({
      baseUrl: gw.server.url,
      apiKey: gw.partner.apiKey,
      basePath: '/api/checkout',
    });
    // The store's page: the bundle's exports land on `window.wallet`, as openWalletPage expects.
    store = await serveFetchHandler(async (request) => {
      const { pathname } = new URL(request.url);
      if (pathname === '/wallet.js')
        return new Response(bundle.code, { headers: { 'content-type': 'text/javascript' } });
      if (pathname.startsWith('/api/checkout/')) return checkoutRoute(request);
      return new Response(
        `<!doctype html><title>store</title><script type="module">import * as wallet from '/wallet.js'; window.wallet = wallet;</script>`,
        { headers: { 'content-type': 'text/html' } },
      );
    });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('is built from the installed dist/ files, small, with no viem or Solana library in it', () => {
    const files = bundle.inputs.filter((input) => input !== '<stdin>');
    expect(files.some((input) => input.startsWith('node_modules/@paygate/checkout/dist/'))).toBe(true);
    for (const input of files) expect(input).not.toMatch(/node_modules\/(viem|@solana\/kit)\//);
    expect(brotliCompressSync(bundle.code).byteLength).toBeLessThan(20_000);
  });

  it('pays a devnet payment in Chromium with an injected EIP-1193 wallet, through the store route', async () => {
    const { paymentId } = await gw.newPayment();
    const buyer = gw.buyer('erin');
    const wallet = new DevnetBrowserWallet(buyer.evmPrivateKey, gw.rpcUrls, gw.evmChain);
    const page = await openWalletPage(browser, store.url, wallet);
    try {
      const outcome = await page.evaluate(
        async ({ paymentId, evmChain }) => {
          const { createPaymentSession, browserTransport, eip1193Wallet, FINAL_STAGES } = (window as any).wallet;
          const session = createPaymentSession(paymentId, {
            transport: browserTransport({ endpoint: '/api/checkout' }),
          });
          const settled = (done: (snapshot: any) => boolean) =>
            new Promise<any>((resolve) => {
              const check = () => done(session.getSnapshot()) && resolve(session.getSnapshot());
              session.subscribe(check);
              check();
            });
          session.start();
          await settled((snapshot) => snapshot.stage === 'connect');
          await session.actions.connectWallet(eip1193Wallet((window as any).ethereum, { name: 'Devnet' }));
          const usdc = session
            .getSnapshot()
            .options.find(
              (option: any) => option.amount.display?.assetSymbol === 'USDC' && option.account.startsWith(evmChain),
            );
          if (!usdc) return session.getSnapshot();
          session.actions.chooseOption(usdc.id);
          await session.actions.pay();
          const final = await settled((snapshot) => FINAL_STAGES.has(snapshot.stage));
          session.stop();
          return final;
        },
        { paymentId, evmChain: gw.evmChain },
      );
      expect(outcome).toMatchObject({ stage: 'succeeded', error: null, wallet: { name: 'Devnet' } });
      expect(wallet.methods).toContain('eth_signTypedData_v4');
      expect((await gw.listed(paymentId)).transaction.hash).toBe(outcome.paid.txId);
    } finally {
      await page.close();
    }
  });
});
