import type { Signers } from '@paygate/wallet/browser';

/** A wallet in this browser the buyer can pay with: an EVM wallet (EIP-6963 or injected) or a Solana wallet. */
export interface BrowserWallet {
  /** As the wallet names itself; empty for an unnamed injected wallet. */
  name: string;
  /** An image data URI. */
  icon: string | undefined;
  namespace: 'eip155' | 'solana';
  /** Why the wallet cannot pay here, when it cannot. */
  unsupported?: string;
  /** Asks the wallet for an account; its address, or undefined when it shares none. */
  connect(): Promise<string | undefined>;
  /** What signs the option's actions on the network (CAIP-2), once connected. */
  signers(network: string): Signers;
}
