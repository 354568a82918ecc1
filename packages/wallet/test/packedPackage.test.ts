import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentOption } from '../src/gatewayTypes.ts';
import { launchChromium, type PageServer, startPageServer } from './support/browserPage.ts';
import { DevnetBrowserWallet, openWalletPage } from './support/devnetBrowserWallet.ts';
import { type DevnetGateway, startDevnetGateway } from './support/devnetGateway.ts';
import { type PackedInstall, packAndInstall } from './support/packedInstall.ts';

const WALLET_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A wallet backend paying a payment with the installed package, in Node: EVM (viem) or Solana (@solana/kit). */
const PAY_SCRIPT = `
import { GatewayClient, evmSignerFromAccount, payWithOption, solanaSignerFromKeyPair } from '@paygate/wallet';
import { privateKeyToAccount } from 'viem/accounts';

const { baseUrl, app, paymentId, account, symbol, evmKey, solanaKey, rpcUrls } = JSON.parse(process.argv[2]);
const client = new GatewayClient({ baseUrl, auth: app });
const { options } = await client.getOptions(paymentId, { accounts: [account] });
const option = options.find((candidate) => candidate.amount.display?.assetSymbol === symbol);
const signers = {
  eip155: evmSignerFromAccount(privateKeyToAccount(evmKey), { rpcUrls }),
  solana: solanaSignerFromKeyPair(solanaKey),
};
console.log(JSON.stringify(await payWithOption({ client, paymentId, option, signers })));
`;

/** Uses the installed package's types the way a TypeScript project would; the misuses must not compile. */
const CONSUMER_TS = `
import { GatewayClient, parsePaymentLink, type PaymentLink, type Signers } from '@paygate/wallet';
import { isPaymentLink } from '@paygate/wallet/browser';

const link: PaymentLink | null = parsePaymentLink('pay_01JABCDEFGHJKMNPQRSTVWXYZ0', { checkoutUrl: 'https://pay.example.com' });
export const paymentId: string | undefined = link?.paymentId;
export const linked: boolean = isPaymentLink('x', { checkoutUrl: 'https://pay.example.com' });
export const client = new GatewayClient({ baseUrl: 'https://api.example.com', auth: { apiKey: 'sk_1' } });
export const none: Signers = {};
// @ts-expect-error the checkout URL is required
parsePaymentLink('x');
// @ts-expect-error baseUrl is a string
new GatewayClient({ baseUrl: 42, auth: { apiKey: 'sk_1' } });
`;

let installed: PackedInstall;
let gw: DevnetGateway;

beforeAll(async () => {
  [installed, gw] = await Promise.all([
    packAndInstall(WALLET_DIR, { 'pay.mjs': PAY_SCRIPT, 'consumer.ts': CONSUMER_TS }),
    startDevnetGateway(),
  ]);
}, 300_000);

afterAll(async () => {
  await gw?.close();
  await installed?.remove();
});

describe('the packed @paygate/wallet', () => {
  it('ships the build, the bin and the README only, and depends on nothing to compile TypeScript', async () => {
    // No script is left for the installing project to approve or refuse (npm 11 warns of a `prepare`). npm on Node 20
    // still warns EBADENGINE for commander 15, which @solana/kit's error package declares for its own command line
    // and this package never loads (README).
    expect(installed.installWarnings.filter((line) => !line.startsWith('npm warn EBADENGINE'))).toEqual([]);
    expect(installed.packedFiles).toContain('dist/index.js');
    expect(installed.packedFiles).toContain('dist/index.d.ts');
    expect(installed.packedFiles).toContain('dist/browser.js');
    expect(installed.packedFiles).toContain('bin/paygate-wallet.js');
    for (const file of installed.packedFiles)
      expect(file).toMatch(/^(dist\/.*\.(js|d\.ts)|bin\/.*\.js|package\.json|README\.md)$/);
    const manifest = JSON.parse(
      await readFile(path.join(installed.dir, 'node_modules/@paygate/wallet/package.json'), 'utf8'),
    );
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@solana/kit', 'commander', 'viem']);
    await expect(readFile(path.join(installed.dir, 'node_modules/tsx/package.json'))).rejects.toThrow(/ENOENT/);
  });

  it('type-checks a strict NodeNext TypeScript project against its declarations', async () => {
    const { ok, output } = await installed.typecheck();
    expect(output).toBe('');
    expect(ok).toBe(true);
  });

  it('runs its paygate-wallet bin with plain Node', async () => {
    const help = await installed.node('node_modules/@paygate/wallet/bin/paygate-wallet.js', ['--help']);
    expect(help).toMatch(/Usage: paygate-wallet/);
    expect(help).toMatch(/\bpay\b/);
  });

  it('pays a devnet payment on an EVM chain from Node', async () => {
    const { paymentId } = await gw.newPayment();
    const buyer = gw.buyer('alice');
    const outcome = JSON.parse(
      await installed.node('pay.mjs', [
        JSON.stringify({
          baseUrl: gw.server.url,
          app: gw.app,
          paymentId,
          account: `${gw.evmChain}:${buyer.evmAddress}`,
          symbol: 'USDC',
          evmKey: buyer.evmPrivateKey,
          solanaKey: buyer.solanaSecretKey,
          rpcUrls: gw.rpcUrls,
        }),
      ]),
    );
    expect(outcome).toMatchObject({ status: 'succeeded', info: { txId: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
    expect((await gw.listed(paymentId)).transaction.hash).toBe(outcome.info.txId);
  });

  it('pays a devnet payment on Solana from Node', async () => {
    const { paymentId } = await gw.newPayment();
    const buyer = gw.buyer('bob');
    const outcome = JSON.parse(
      await installed.node('pay.mjs', [
        JSON.stringify({
          baseUrl: gw.server.url,
          app: gw.app,
          paymentId,
          account: `${gw.solanaChain}:${buyer.solanaAddress}`,
          symbol: 'USDC',
          evmKey: buyer.evmPrivateKey,
          solanaKey: buyer.solanaSecretKey,
          rpcUrls: gw.rpcUrls,
        }),
      ]),
    );
    expect(outcome).toMatchObject({ status: 'succeeded' });
    expect((await gw.listed(paymentId)).status).toBe('succeeded');
  });
});

describe('a browser bundle of the installed @paygate/wallet/browser', () => {
  let browser: Browser;
  let pageServer: PageServer;
  let bundleInputs: string[];

  beforeAll(async () => {
    const bundled = await build({
      stdin: { contents: "export * from '@paygate/wallet/browser';", resolveDir: installed.dir },
      absWorkingDir: installed.dir,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    bundleInputs = Object.keys(bundled.metafile.inputs);
    pageServer = await startPageServer(bundled.outputFiles[0]!.text, gw.server.url);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await pageServer?.close();
  });

  it("is built from the package's dist/ alone", () => {
    const files = bundleInputs.filter((input) => input !== '<stdin>');
    expect(files.length).toBeGreaterThan(3);
    for (const input of files) expect(input).toMatch(/^node_modules\/@paygate\/wallet\/dist\/[\w.]+\.js$/);
  });

  it('pays a devnet payment in Chromium through an EIP-1193 wallet', async () => {
    const { paymentId } = await gw.newPayment();
    const wallet = new DevnetBrowserWallet(gw.buyer('erin').evmPrivateKey, gw.rpcUrls, gw.evmChain);
    const page = await openWalletPage(browser, pageServer.url, wallet);
    try {
      const outcome = await page.evaluate(
        async ({ paymentId, account, app }) => {
          const { GatewayClient, payWithOption, evmSignerFromEip1193 } = (window as any).wallet;
          const client = new GatewayClient({ baseUrl: location.origin, auth: app });
          const { options } = await client.getOptions(paymentId, { accounts: [account] });
          const option = options.find((candidate: PaymentOption) => candidate.amount.display?.assetSymbol === 'USDC');
          return payWithOption({
            client,
            paymentId,
            option,
            signers: { eip155: evmSignerFromEip1193((window as any).ethereum) },
          });
        },
        { paymentId, account: `${gw.evmChain}:${gw.buyer('erin').evmAddress}`, app: gw.app },
      );
      expect(outcome).toMatchObject({ status: 'succeeded', info: { txId: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
      expect(wallet.methods).toContain('eth_signTypedData_v4');
      expect((await gw.listed(paymentId)).transaction.hash).toBe(outcome.info.txId);
    } finally {
      await page.close();
    }
  });
});
