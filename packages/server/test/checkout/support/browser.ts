import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import jsQRModule from 'jsqr';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import sharp from 'sharp';
import { createWalletClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { getBase58Encoder } from '@solana/kit';
import { solanaSignerFromKeyPair } from '@paygate/wallet';

// jsqr is CommonJS exporting the function itself; its typings describe an ES default export.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** Screenshots for a person to look at, in a git-ignored folder. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../../../test-artifacts/checkout/', import.meta.url));

export const VIEWPORTS = {
  phone: { width: 375, height: 812 },
  desktop: { width: 1280, height: 900 },
} as const;

/**
 * Debian's chromium, headless; playwright-core never downloads a browser. `extraArgs` adds switches (a remote
 * debugging port for Lighthouse, say).
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}

/** Every request a context makes and every console error (CSP violations are reported there). */
export function recordTraffic(context: BrowserContext) {
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  context.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  return { requests, consoleErrors };
}

/**
 * Saves a full-page screenshot of the current page at the phone and desktop widths, and checks that nothing is
 * wider than either screen (no sideways scrolling on a 375 px phone).
 */
export async function saveScreenshots(
  page: Page,
  name: string,
  viewports: Record<string, { width: number; height: number }> = VIEWPORTS,
): Promise<void> {
  await fs.mkdir(ARTIFACTS_DIR, { recursive: true });
  const original = page.viewportSize();
  for (const [label, size] of Object.entries(viewports)) {
    await page.setViewportSize(size);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    if (scrollWidth > size.width)
      throw new Error(`${name} is ${scrollWidth} px wide on a ${size.width} px ${label} screen`);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}-${label}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
}

/** WCAG contrast ratio of two CSS `rgb()`/`rgba()` colours (alpha ignored). */
export function contrastRatio(foreground: string, background: string): number {
  const luminance = (color: string) => {
    const [r, g, b] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((part) => {
      const channel = Number(part) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a);
  return (light! + 0.05) / (dark! + 0.05);
}

/** Text colour and effective background colour of every visible element that holds text directly. */
export function textColours(page: Page): Promise<{ text: string; color: string; background: string }[]> {
  return page.evaluate(() => {
    const backgroundOf = (element: Element | null): string => {
      for (let current = element; current; current = current.parentElement) {
        const color = getComputedStyle(current).backgroundColor;
        if (color && color !== 'rgba(0, 0, 0, 0)' && color !== 'transparent') return color;
      }
      return 'rgb(255, 255, 255)';
    };
    const found: { text: string; color: string; background: string }[] = [];
    document.querySelectorAll('body *').forEach((element) => {
      const ownText = Array.from(element.childNodes)
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent ?? '')
        .join('')
        .trim();
      const box = element.getBoundingClientRect();
      if (!ownText || box.width === 0 || box.height === 0 || element.closest('[hidden], .visually-hidden')) return;
      found.push({
        text: ownText.slice(0, 40),
        color: getComputedStyle(element).color,
        background: backgroundOf(element),
      });
    });
    return found;
  });
}

/** Decodes the QR code in a PNG screenshot, or undefined when none is found. */
export async function decodeQr(png: Buffer): Promise<string | undefined> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data;
}

interface ProviderError {
  code: number;
  message: string;
}

/** Failures the injected wallet produces once each, as a real wallet would when the buyer declines or lacks a network. */
export interface WalletScript {
  /** `wallet_switchEthereumChain` answers 4902 once; the network counts as added afterwards. */
  unknownChainOnce?: boolean;
  /** The first signature request answers 4001 (the buyer declined). */
  rejectSignatureOnce?: boolean;
}

/** How an injected EVM wallet makes itself known: through EIP-6963 announcements, as a wallet extension does. */
export interface Eip6963Announcement {
  name: string;
  rdns: string;
  /** A data URI. */
  icon: string;
}

/** A small square SVG icon of one colour, as a data URI (EIP-6963 and the Wallet Standard ask for data URIs). */
export function iconDataUri(colour: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="5" fill="${colour}"/></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

let injectedWallets = 0;

/**
 * An EIP-1193 provider in the page backed by a devnet buyer's key in the test process: it signs typed data and
 * sends transactions to anvil. It starts on chain 1, so paying makes the page switch chains. Without `announce`
 * it is `window.ethereum`; with it, it announces itself through EIP-6963 only (several can be injected so).
 */
export async function injectDevnetWallet(
  page: Page,
  options: {
    privateKey: `0x${string}`;
    chain: { chainId: number; rpcUrl: string; name: string };
    script?: WalletScript;
    announce?: Eip6963Announcement;
  },
) {
  const account = privateKeyToAccount(options.privateKey);
  const chain = defineChain({
    id: options.chain.chainId,
    name: options.chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.chain.rpcUrl] } },
  });
  const walletClient = createWalletClient({ account, chain, transport: http(options.chain.rpcUrl) });
  const calls: string[] = [];
  let currentChain = 1;
  const knownChains = new Set([1]);
  const script = { ...options.script };
  if (!script.unknownChainOnce) knownChains.add(options.chain.chainId);

  async function handle(method: string, params: any[]): Promise<unknown> {
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [account.address];
      case 'eth_chainId':
        return `0x${currentChain.toString(16)}`;
      case 'wallet_switchEthereumChain': {
        const wanted = Number.parseInt(params[0].chainId, 16);
        if (!knownChains.has(wanted)) {
          // The buyer then adds the network in the wallet, so the next attempt can switch.
          knownChains.add(wanted);
          throw { code: 4902, message: `Unrecognized chain ID ${params[0].chainId}.` } satisfies ProviderError;
        }
        currentChain = wanted;
        return null;
      }
      case 'eth_signTypedData_v4': {
        if (script.rejectSignatureOnce) {
          script.rejectSignatureOnce = false;
          throw { code: 4001, message: 'User rejected the request.' } satisfies ProviderError;
        }
        const [from, json] = params as [string, string];
        if (from.toLowerCase() !== account.address.toLowerCase()) throw { code: 4100, message: 'Unknown account' };
        if (currentChain !== options.chain.chainId) throw { code: 4901, message: 'Wrong chain' };
        return account.signTypedData(JSON.parse(json));
      }
      case 'eth_sendTransaction': {
        const [tx] = params as [{ to: `0x${string}`; data?: `0x${string}`; value?: `0x${string}` }];
        return walletClient.sendTransaction({
          to: tx.to,
          data: tx.data,
          value: tx.value ? BigInt(tx.value) : undefined,
        });
      }
      default:
        throw { code: 4200, message: `Unsupported method ${method}` } satisfies ProviderError;
    }
  }

  const bridge = `__devnetWallet${++injectedWallets}`;
  await page.exposeFunction(bridge, async (method: string, paramsJson: string) => {
    calls.push(method);
    try {
      return { result: await handle(method, JSON.parse(paramsJson)) };
    } catch (error) {
      const { code, message } = error as ProviderError;
      return { error: { code: typeof code === 'number' ? code : -32603, message: String(message ?? error) } };
    }
  });
  const announcement = options.announce
    ? {
        uuid: crypto.randomUUID(),
        name: options.announce.name,
        rdns: options.announce.rdns,
        icon: options.announce.icon,
      }
    : null;
  await page.addInitScript(
    ({ bridge, info }) => {
      const provider = {
        request: async ({ method, params }: { method: string; params?: unknown[] }) => {
          const answer = await (window as any)[bridge](method, JSON.stringify(params ?? []));
          if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
          return answer.result;
        },
      };
      if (!info) {
        (window as any).ethereum = provider;
        return;
      }
      const detail = Object.freeze({ info: Object.freeze(info), provider });
      const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
      window.addEventListener('eip6963:requestProvider', announce);
      announce();
    },
    { bridge, info: announcement },
  );
  return { address: account.address, calls };
}

/**
 * A Solana wallet in the page, registered through the Wallet Standard as a wallet extension registers itself,
 * backed by a devnet buyer's key pair in the test process: it connects with that account and signs transactions
 * (`solana:signTransaction`) without sending them. `signAndSendOnly` makes a wallet that offers only
 * `solana:signAndSendTransaction`, which never signs here; `rejectSignatureOnce` declines the first signature
 * request as a buyer would (code 4001, as Solana wallets answer).
 */
export async function injectSolanaWallet(
  page: Page,
  options: { secretKey: string; name: string; icon: string; signAndSendOnly?: boolean; rejectSignatureOnce?: boolean },
) {
  const signer = solanaSignerFromKeyPair(options.secretKey);
  const address = await signer.address();
  const calls: string[] = [];
  const bridge = `__solanaWallet${++injectedWallets}`;
  await page.exposeFunction(bridge, async (method: string, transaction: string) => {
    calls.push(method);
    return method === 'solana:signTransaction' ? signer.signTransaction(transaction) : '';
  });
  await page.addInitScript(
    ({ bridge, name, icon, address, publicKey, signAndSendOnly, rejectSignatureOnce }) => {
      let rejectNext = rejectSignatureOnce;
      const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
      const fromBase64 = (text: string) => Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
      const call = (window as any)[bridge] as (method: string, transaction: string) => Promise<string>;
      const chains = ['solana:mainnet', 'solana:devnet', 'solana:localnet'];
      const signFeature = signAndSendOnly ? 'solana:signAndSendTransaction' : 'solana:signTransaction';
      const account = Object.freeze({
        address,
        publicKey: new Uint8Array(publicKey),
        chains,
        features: [signFeature],
      });
      let accounts: (typeof account)[] = [];
      const features: Record<string, unknown> = {
        'standard:connect': {
          version: '1.0.0',
          connect: async () => {
            await call('standard:connect', '');
            accounts = [account];
            return { accounts };
          },
        },
        'standard:events': { version: '1.0.0', on: () => () => {} },
      };
      if (signAndSendOnly) {
        features['solana:signAndSendTransaction'] = {
          version: '1.0.0',
          supportedTransactionVersions: ['legacy', 0],
          signAndSendTransaction: async () => {
            throw new Error('not used by the checkout page');
          },
        };
      } else {
        features['solana:signTransaction'] = {
          version: '1.0.0',
          supportedTransactionVersions: ['legacy', 0],
          signTransaction: async (...inputs: { transaction: Uint8Array }[]) => {
            if (rejectNext) {
              rejectNext = false;
              throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
            }
            return Promise.all(
              inputs.map(async (input) => ({
                signedTransaction: fromBase64(await call('solana:signTransaction', toBase64(input.transaction))),
              })),
            );
          },
        };
      }
      const wallet = {
        version: '1.0.0',
        name,
        icon,
        chains,
        features,
        get accounts() {
          return accounts;
        },
      };
      const register = (api: { register: (wallet: unknown) => unknown }) => api.register(wallet);
      window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: register }));
      window.addEventListener('wallet-standard:app-ready', (event) => register((event as CustomEvent).detail));
    },
    {
      bridge,
      name: options.name,
      icon: options.icon,
      address,
      publicKey: [...getBase58Encoder().encode(address)],
      signAndSendOnly: options.signAndSendOnly ?? false,
      rejectSignatureOnce: options.rejectSignatureOnce ?? false,
    },
  );
  return { address, calls };
}
