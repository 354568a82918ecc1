import type { Browser, Page } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { evmSignerFromAccount } from '../../src/index.ts';

/**
 * The browser wallet's side of EIP-1193, run in Node and exposed to the page: it sits on one chain at a time,
 * switches when asked (4902 for chains it does not know), can be told to have its user reject (4001), and signs
 * and sends with a devnet buyer's key.
 */
export class DevnetBrowserWallet {
  chainId: string;
  readonly methods: string[] = [];
  /** The transactions the page asked the wallet to send, as the wallet received them. */
  readonly sentTransactions: unknown[] = [];
  rejectNext = false;
  readonly #signer;
  readonly #address: string;

  constructor(
    privateKey: `0x${string}`,
    readonly rpcUrls: Record<string, string>,
    startChain: string,
  ) {
    this.chainId = startChain;
    const account = privateKeyToAccount(privateKey);
    this.#address = account.address;
    this.#signer = evmSignerFromAccount(account, { rpcUrls });
  }

  async handle(
    method: string,
    params: unknown[],
  ): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
    this.methods.push(method);
    if (method === 'eth_chainId') return { result: `0x${Number(this.chainId.split(':')[1]).toString(16)}` };
    if (method === 'wallet_switchEthereumChain') {
      const wanted = `eip155:${Number.parseInt((params[0] as { chainId: string }).chainId, 16)}`;
      if (!this.rpcUrls[wanted]) return { error: { code: 4902, message: `Unrecognized chain ID ${wanted}` } };
      this.chainId = wanted;
      return { result: null };
    }
    if (this.rejectNext) {
      this.rejectNext = false;
      return { error: { code: 4001, message: 'User rejected the request.' } };
    }
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return { result: [this.#address] };
    if (method === 'eth_sendTransaction') this.sentTransactions.push(params[0]);
    try {
      return { result: await this.#signer.request({ chainId: this.chainId, method, params }) };
    } catch (error) {
      return { error: { code: -32603, message: (error as Error).message } };
    }
  }
}

/**
 * Opens the page a page server serves, with `wallet` (if given) injected as `window.ethereum`, and waits for the
 * bundle's exports on `window.wallet`.
 */
export async function openWalletPage(browser: Browser, url: string, wallet?: DevnetBrowserWallet): Promise<Page> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  if (wallet) {
    await page.exposeFunction('devnetWallet', (method: string, params: unknown[]) => wallet.handle(method, params));
    await page.addInitScript(() => {
      const w = window as any;
      w.ethereum = {
        async request({ method, params }: { method: string; params?: unknown[] }) {
          const answer = await w.devnetWallet(method, params ?? []);
          if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
          return answer.result;
        },
      };
    });
  }
  await page.goto(url);
  await page
    .waitForFunction(() => (window as any).wallet !== undefined, undefined, { timeout: 10_000 })
    .catch(() => {
      throw new Error(`the bundle did not load: ${problems.join('; ')}`);
    });
  return page;
}
