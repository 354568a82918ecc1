import { type Eip1193Provider, evmSignerFromEip1193 } from '@paygate/wallet/browser';
import type { CheckoutWallet } from '../seams.ts';

/** What an EIP-6963 wallet announces about itself. */
interface Eip6963ProviderInfo {
  uuid: string;
  name: string;
  /** A data URI of the wallet's icon (EIP-6963 asks for one; anything else is not shown). */
  icon: string;
  rdns: string;
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

/** Any EIP-1193 provider as a wallet: an injected one, WalletConnect's, or one a test or an agent holds. */
export function eip1193Wallet(
  provider: Eip1193Provider,
  about: { id?: string; name?: string; icon?: string } = {},
): CheckoutWallet {
  const { id = 'eip1193', name = '', icon } = about;
  return {
    id,
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
 * itself later. Returns what stops watching.
 */
export function watchEvmWallets(onChange: (wallets: CheckoutWallet[]) => void): () => void {
  const announced = new Map<string, CheckoutWallet>();
  const emit = () => {
    const wallets = [...announced.values()];
    // Read, not declared on Window: a library must not change its users' global types.
    const injected = (window as { ethereum?: unknown }).ethereum;
    if (!wallets.length && isProvider(injected)) wallets.push(eip1193Wallet(injected, { id: 'injected' }));
    onChange(wallets);
  };
  const onAnnounce = (event: Event) => {
    const detail = (event as CustomEvent<{ info?: unknown; provider?: unknown }>).detail;
    if (!detail || !isInfo(detail.info) || !isProvider(detail.provider)) return;
    const { uuid, name, icon } = detail.info;
    // A wallet answers every request for providers: one entry per uuid.
    if (announced.has(uuid)) return;
    announced.set(uuid, eip1193Wallet(detail.provider, { id: uuid, name: name.slice(0, 60), icon: walletIcon(icon) }));
    emit();
  };
  window.addEventListener('eip6963:announceProvider', onAnnounce);
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  emit();
  return () => window.removeEventListener('eip6963:announceProvider', onAnnounce);
}
