import { type SolanaSigner, UserRejectedError } from '@paygate/wallet/browser';
import { getWallets } from '@wallet-standard/app';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import type { CheckoutWallet } from '../seams.ts';
import { walletIcon } from './eip6963.ts';

const CONNECT = 'standard:connect';
const SIGN = 'solana:signTransaction';
const SIGN_AND_SEND = 'solana:signAndSendTransaction';

interface ConnectFeature {
  connect(input?: { silent?: boolean }): Promise<{ accounts: readonly WalletAccount[] }>;
}

interface SignTransactionFeature {
  signTransaction(
    ...inputs: { account: WalletAccount; transaction: Uint8Array; chain?: string }[]
  ): Promise<readonly { signedTransaction: Uint8Array }[]>;
}

/** The Wallet Standard's names of the public Solana clusters, by the genesis hash in their CAIP-2 id. */
const CLUSTERS: Record<string, string> = {
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'solana:mainnet',
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1: 'solana:devnet',
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': 'solana:testnet',
};

function bytesOfBase64(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
}

function base64OfBytes(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * A wallet's refusal as the SDK's `UserRejectedError`, so the page explains it as declined: Solana wallets answer
 * a declined request with EIP-1193's code 4001, as their injected providers did before the Wallet Standard.
 */
async function declinedAsRejected<T>(method: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 4001) throw new UserRejectedError(method, { cause: error });
    throw error;
  }
}

function isSolanaWallet(wallet: Wallet): boolean {
  const features = Object.keys(wallet.features);
  return features.includes(CONNECT) && (features.includes(SIGN) || features.includes(SIGN_AND_SEND));
}

function solanaWallet(wallet: Wallet): CheckoutWallet {
  let account: WalletAccount | undefined;
  const canSign = SIGN in wallet.features;
  return {
    id: `wallet-standard:${wallet.name}`,
    name: wallet.name.slice(0, 60),
    icon: walletIcon(wallet.icon),
    namespace: 'solana',
    // The service pays the network fee and signs after the buyer: a wallet must sign without sending.
    unsupported: canSign ? undefined : 'signs only by sending the transaction itself, which this payment cannot use',
    async connect() {
      const { accounts } = await declinedAsRejected(CONNECT, () =>
        (wallet.features[CONNECT] as ConnectFeature).connect(),
      );
      account = [...accounts, ...wallet.accounts].find((candidate) => candidate.features.includes(SIGN));
      return account?.address;
    },
    signers: (network) => {
      const chain = CLUSTERS[network.split(':')[1] ?? ''];
      const signer: SolanaSigner = {
        async signTransaction(base64Transaction) {
          if (!account) throw new Error('The wallet is not connected');
          const [signed] = await declinedAsRejected(SIGN, () =>
            (wallet.features[SIGN] as SignTransactionFeature).signTransaction({
              account: account as WalletAccount,
              transaction: bytesOfBase64(base64Transaction),
              ...(chain ? { chain } : {}),
            }),
          );
          if (!signed) throw new Error('The wallet returned no signed transaction');
          return base64OfBytes(signed.signedTransaction);
        },
      };
      return { solana: signer };
    },
  };
}

/**
 * The Solana wallets of this browser, through the Wallet Standard: those that connect and sign Solana transactions.
 * `onChange` gets the whole list at once and again whenever a wallet registers later. Returns what stops watching.
 */
export function watchSolanaWallets(onChange: (wallets: CheckoutWallet[]) => void): () => void {
  const registry = getWallets();
  const emit = () => onChange(registry.get().filter(isSolanaWallet).map(solanaWallet));
  const stops = [registry.on('register', emit), registry.on('unregister', emit)];
  emit();
  return () => {
    for (const stop of stops) stop();
  };
}
