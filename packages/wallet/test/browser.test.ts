import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentOption } from '../src/gatewayTypes.ts';
import {
  BROWSER_ENTRY,
  bundleBrowserEntry,
  launchChromium,
  type PageServer,
  startPageServer,
} from './support/browserPage.ts';
import { DevnetBrowserWallet, openWalletPage } from './support/devnetBrowserWallet.ts';
import { type DevnetGateway, startDevnetGateway } from './support/devnetGateway.ts';

let gw: DevnetGateway;
let browser: Browser;
let pageServer: PageServer;
let bundleInputs: string[];

beforeAll(async () => {
  const bundle = await bundleBrowserEntry();
  bundleInputs = Object.keys(bundle.metafile.inputs);
  gw = await startDevnetGateway();
  pageServer = await startPageServer(bundle.code, gw.server.url);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await pageServer?.close();
  await gw?.close();
});

const openPage = (wallet?: DevnetBrowserWallet) => openWalletPage(browser, pageServer.url, wallet);

describe('browser entry', () => {
  it('bundles from the wallet sources alone: nothing Node-only, neither viem nor @solana/kit', () => {
    const walletSrc = path.dirname(BROWSER_ENTRY);
    expect(bundleInputs.length).toBeGreaterThan(3);
    for (const input of bundleInputs)
      expect(path.resolve(input).startsWith(`${walletSrc}${path.sep}`), input).toBe(true);
  });

  it('parses payment links in Chromium', async () => {
    const page = await openPage();
    try {
      const parsed = await page.evaluate(() => {
        const { parsePaymentLink } = (window as any).wallet;
        const checkoutUrl = 'https://pay.example.com';
        const id = 'pay_01JABCDEFGHJKMNPQRSTVWXYZ0';
        return [
          `https://pay.example.com/${id}`,
          `https://shop.pay.example.com/?pid=${id}`,
          `wc:abc@2?relay-protocol=irn&pay=${encodeURIComponent(`https://pay.example.com/${id}`)}`,
          id,
          `https://evil-pay.example.com/${id}`,
          `https://pay.example.com.attacker.com/${id}`,
          `https://pay.example.com@evil.com/${id}`,
        ].map((input) => parsePaymentLink(input, { checkoutUrl })?.paymentId ?? null);
      });
      const id = 'pay_01JABCDEFGHJKMNPQRSTVWXYZ0';
      expect(parsed).toEqual([id, id, id, id, null, null, null]);
    } finally {
      await page.close();
    }
  });

  it('pays an EIP-3009 option from the page through an EIP-1193 wallet, switching it to the option chain first', async () => {
    const { paymentId } = await gw.newPayment();
    const otherChain = gw.devnet.manifest.evm[1]!.caip2;
    const wallet = new DevnetBrowserWallet(gw.buyer('alice').evmPrivateKey, gw.rpcUrls, otherChain);
    const page = await openPage(wallet);
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
        { paymentId, account: `${gw.evmChain}:${gw.buyer('alice').evmAddress}`, app: gw.app },
      );
      expect(outcome).toMatchObject({ status: 'succeeded', info: { txId: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
      expect(wallet.methods).toEqual([
        'eth_chainId',
        'wallet_switchEthereumChain',
        'eth_chainId',
        'eth_signTypedData_v4',
      ]);
      expect(wallet.chainId).toBe(gw.evmChain);
      expect((await gw.listed(paymentId)).transaction.hash).toBe(outcome.info.txId);
    } finally {
      await page.close();
    }
  });

  it("pays a native coin option from the page through an EIP-1193 wallet, handing it the option's reference as data", async () => {
    const { paymentId } = await gw.newPayment();
    const wallet = new DevnetBrowserWallet(gw.buyer('alice').evmPrivateKey, gw.rpcUrls, gw.evmChain);
    const page = await openPage(wallet);
    try {
      const { outcome, params } = await page.evaluate(
        async ({ paymentId, account, app }) => {
          const { GatewayClient, payWithOption, evmSignerFromEip1193 } = (window as any).wallet;
          const client = new GatewayClient({ baseUrl: location.origin, auth: app });
          const { options } = await client.getOptions(paymentId, { accounts: [account] });
          const option = options.find((candidate: PaymentOption) => candidate.amount.display?.assetSymbol === 'ETH');
          const outcome = await payWithOption({
            client,
            paymentId,
            option,
            signers: { eip155: evmSignerFromEip1193((window as any).ethereum) },
          });
          return { outcome, params: option.actions[0].data.params as string };
        },
        { paymentId, account: `${gw.evmChain}:${gw.buyer('alice').evmAddress}`, app: gw.app },
      );
      expect(outcome).toMatchObject({ status: 'succeeded' });
      const [offered] = JSON.parse(params) as [{ data: string }];
      expect(offered.data).toMatch(/^0x[0-9a-f]{64}$/);
      expect(wallet.sentTransactions).toEqual([offered]);
    } finally {
      await page.close();
    }
  });

  it('turns a rejection (4001) and an unknown chain (4902) into typed errors, leaving the payment payable', async () => {
    const { paymentId } = await gw.newPayment();
    const wallet = new DevnetBrowserWallet(gw.buyer('bob').evmPrivateKey, gw.rpcUrls, gw.evmChain);
    wallet.rejectNext = true;
    const page = await openPage(wallet);
    try {
      const errors = await page.evaluate(
        async ({ paymentId, account, app }) => {
          const w = (window as any).wallet;
          const client = new w.GatewayClient({ baseUrl: location.origin, auth: app });
          const { options } = await client.getOptions(paymentId, { accounts: [account] });
          const option = options.find((candidate: PaymentOption) => candidate.amount.display?.assetSymbol === 'USDC');
          const signers = { eip155: w.evmSignerFromEip1193((window as any).ethereum) };
          const describe = (error: any) => ({
            rejected: error instanceof w.UserRejectedError,
            unknownChain: error instanceof w.UnknownChainError,
            walletError: error instanceof w.WalletError,
            code: error.code,
            message: error.message,
          });
          const rejected = await w.payWithOption({ client, paymentId, option, signers }).catch(describe);
          const elsewhere = {
            id: option.id,
            actions: [
              {
                type: 'walletRpc',
                data: { chain_id: 'eip155:999', method: 'personal_sign', params: '["0x00","0x0"]' },
              },
            ],
          };
          const unknownChain = await w.payWithOption({ client, paymentId, option: elsewhere, signers }).catch(describe);
          const status = await client.getStatus(paymentId);
          return { rejected, unknownChain, status: status.status };
        },
        { paymentId, account: `${gw.evmChain}:${gw.buyer('bob').evmAddress}`, app: gw.app },
      );
      expect(errors.rejected).toMatchObject({
        rejected: true,
        walletError: true,
        code: 'user_rejected',
        message: expect.stringContaining('rejected'),
      });
      expect(errors.unknownChain).toMatchObject({
        unknownChain: true,
        walletError: true,
        code: 'unknown_chain',
        message: expect.stringContaining('eip155:999'),
      });
      expect(errors.status).toBe('requires_action');
    } finally {
      await page.close();
    }
  });
});
