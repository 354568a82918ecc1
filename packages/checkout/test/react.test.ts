import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../wallet/test/support/browserPage.ts';
import { DevnetBrowserWallet, openWalletPage } from '../../wallet/test/support/devnetBrowserWallet.ts';
import { type DevnetGateway, startDevnetGateway } from '../../wallet/test/support/devnetGateway.ts';
import { createCheckoutHandler } from '../src/server.ts';
import { type RunningServer, serveFetchHandler } from './support/fetchHandlerServer.ts';

const HOOK_PAGE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/hookPage.ts');

let gw: DevnetGateway;
let browser: Browser;

beforeAll(async () => {
  [gw, browser] = await Promise.all([startDevnetGateway(), launchChromium()]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

/** The hook page bundled for the browser, with React itself or with Preact standing in for it. */
async function bundle(library: 'react' | 'preact'): Promise<string> {
  const result = await build({
    entryPoints: [HOOK_PAGE],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@paygate/source'],
    define: { 'process.env.NODE_ENV': '"production"' },
    ...(library === 'preact' ? { alias: { react: 'preact/compat', 'react-dom/client': 'preact/compat/client' } } : {}),
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

describe.each(['react', 'preact'] as const)('usePaymentSession under %s', (library) => {
  let store: RunningServer;

  beforeAll(async () => {
    const script = await bundle(library);
    const route = createCheckoutHandler({
      baseUrl: gw.server.url,
      apiKey: gw.partner.apiKey,
      basePath: '/api/checkout',
    });
    store = await serveFetchHandler(async (request) => {
      const url = new URL(request.url);
      if (url.pathname === '/wallet.js')
        return new Response(script, { headers: { 'content-type': 'text/javascript' } });
      if (url.pathname.startsWith('/api/checkout/')) return route(request);
      const paymentId = url.searchParams.get('paymentId') ?? '';
      return new Response(
        `<!doctype html><title>hook</title><div id="root"></div><script>window.paymentId = ${JSON.stringify(paymentId)};</script><script type="module" src="/wallet.js"></script>`,
        { headers: { 'content-type': 'text/html' } },
      );
    });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
  });

  it('renders each stage from load to succeeded while a devnet payment is paid, through StrictMode’s remount', async () => {
    const { paymentId } = await gw.newPayment();
    const wallet = new DevnetBrowserWallet(gw.buyer('erin').evmPrivateKey, gw.rpcUrls, gw.evmChain);
    const page = await openWalletPage(browser, `${store.url}/?paymentId=${paymentId}`, wallet);
    try {
      await page.waitForFunction(() => document.getElementById('stage')?.textContent === 'connect');
      const stages = await page.evaluate(async (evmChain) => {
        const w = window as any;
        await w.connect();
        const usdc = w.rendered
          .at(-1)
          .options.find(
            (option: any) => option.amount.display?.assetSymbol === 'USDC' && option.account.startsWith(evmChain),
          );
        w.actions.chooseOption(usdc.id);
        await w.actions.pay();
        return w.rendered.map((snapshot: any) => snapshot.stage);
      }, gw.evmChain);
      await page.waitForFunction(() => document.getElementById('stage')?.textContent === 'succeeded', undefined, {
        timeout: 30_000,
      });
      expect(stages[0]).toBe('loading');
      for (const stage of ['connect', 'connecting', 'quoting', 'options', 'signing']) expect(stages).toContain(stage);
      // StrictMode's second mount did not pay again: the wallet signed once.
      expect(wallet.methods.filter((method) => method === 'eth_signTypedData_v4')).toHaveLength(1);
      expect((await gw.listed(paymentId)).status).toBe('succeeded');
    } finally {
      await page.close();
    }
  });
});
