import { type Eip1193Provider, evmSignerFromEip1193 } from '@paygate/wallet/browser';
import type { BrowserWallet } from './browserWallets.ts';

/** What an EIP-6963 wallet announces about itself. */
interface Eip6963ProviderInfo {
  uuid: string;
  name: string;
  /** A data URI of the wallet's icon (EIP-6963 asks for one; anything else is not shown). */
  icon: string;
  rdns: string;
}

declare global {
  interface Window {
    ethereum?: Eip1193Provider;
  }
}

function isProvider(value: unknown): value is Eip1193Provider {
  return typeof value === 'object' && value !== null && typeof (value as Eip1193Provider).request === 'function';
}

function isInfo(value: unknown): value is Eip6963ProviderInfo {
  const info = value as Partial<Eip6963ProviderInfo> | null;
  return typeof info === 'object' && info !== null && typeof info.uuid === 'string' && typeof info.name === 'string';
}

/** Only an image data URI is shown, so no wallet makes the page fetch anything. */
export function walletIcon(icon: unknown): string | undefined {
  return typeof icon === 'string' && /^data:image\/(svg\+xml|png|jpeg|gif|webp)[;,]/i.test(icon) ? icon : undefined;
}

function evmWallet(name: string, icon: string | undefined, provider: Eip1193Provider): BrowserWallet {
  return {
    name,
    icon,
    namespace: 'eip155',
    async connect() {
      const accounts = await provider.request({ method: 'eth_requestAccounts' });
      return Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : undefined;
    },
    signers: () => ({ eip155: evmSignerFromEip1193(provider) }),
  };
}

/**
 * The EVM wallets of this browser: each wallet that announces itself through EIP-6963 (several may), else the one
 * injected as `window.ethereum`. `onChange` gets the whole list at once and again whenever a wallet announces
 * itself later.
 */
export function watchEvmWallets(onChange: (wallets: BrowserWallet[]) => void): void {
  const announced = new Map<string, BrowserWallet>();
  const emit = () => {
    const wallets = [...announced.values()];
    const injected = window.ethereum;
    if (!wallets.length && isProvider(injected)) wallets.push(evmWallet('', undefined, injected));
    onChange(wallets);
  };
  window.addEventListener('eip6963:announceProvider', (event) => {
    const detail = (event as CustomEvent<{ info?: unknown; provider?: unknown }>).detail;
    if (!detail || !isInfo(detail.info) || !isProvider(detail.provider)) return;
    const { uuid, name, icon } = detail.info;
    // A wallet answers every request for providers: one entry per uuid.
    if (announced.has(uuid)) return;
    announced.set(uuid, evmWallet(name.slice(0, 60), walletIcon(icon), detail.provider));
    emit();
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  emit();
}
