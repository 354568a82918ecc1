import { evmSignerFromAccount, solanaSignerFromKeyPair } from '@paygate/wallet';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { CheckoutWallet } from './seams.ts';

/**
 * A wallet holding an EVM private key, for Node (a server paying on a buyer's behalf, an agent, a test): it signs
 * typed data and messages itself and sends transactions through the RPC URL of each chain (CAIP-2 -> URL).
 */
export function evmKeyWallet(options: {
  privateKey: Hex;
  rpcUrls: Record<string, string>;
  name?: string;
}): CheckoutWallet {
  const account = privateKeyToAccount(options.privateKey);
  const signer = evmSignerFromAccount(account, { rpcUrls: options.rpcUrls });
  return {
    id: `evm-key:${account.address}`,
    name: options.name ?? '',
    icon: undefined,
    namespace: 'eip155',
    connect: async () => account.address,
    signers: () => ({ eip155: signer }),
  };
}

/** A wallet holding a Solana key pair (64 bytes, a 32-byte seed, or the base58 text wallets export), for Node. */
export function solanaKeyWallet(options: { secretKey: Uint8Array | string; name?: string }): CheckoutWallet {
  const signer = solanaSignerFromKeyPair(options.secretKey);
  return {
    id: 'solana-key',
    name: options.name ?? '',
    icon: undefined,
    namespace: 'solana',
    connect: () => signer.address(),
    signers: () => ({ solana: signer }),
  };
}
