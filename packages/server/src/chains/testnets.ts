import { evmNetwork, evmToken, type NetworkInfo, splToken } from './registry.ts';

const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

/**
 * The public testnets (`CHAINS=testnet`) with Circle's testnet USDC, and EURC where Circle issues it (Ethereum
 * Sepolia, Base Sepolia). Tokens with no value, on networks that behave like their mainnets: the same depths and
 * block times as the mainnet preset. RPC URLs come from configuration, as on mainnet.
 */
export const TESTNET_NETWORKS: NetworkInfo[] = [
  evmNetwork(11155111, 'Ethereum Sepolia', 12, 12_000, 'https://sepolia.etherscan.io', [
    evmToken(11155111, 'USDC', '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'),
    evmToken(11155111, 'EURC', '0x08210F9170F89Ab7658F0B5E3fF39b0E03C594D4'),
  ]),
  evmNetwork(84532, 'Base Sepolia', 5, 2_000, 'https://sepolia.basescan.org', [
    evmToken(84532, 'USDC', '0x036CbD53842c5426634e7929541eC2318f3dCF7e'),
    evmToken(84532, 'EURC', '0x808456652fdb597867f38412077A9182bf77359F'),
  ]),
  evmNetwork(421614, 'Arbitrum Sepolia', 5, 250, 'https://sepolia.arbiscan.io', [
    evmToken(421614, 'USDC', '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d'),
  ]),
  evmNetwork(11155420, 'OP Sepolia', 5, 2_000, 'https://sepolia-optimism.etherscan.io', [
    evmToken(11155420, 'USDC', '0x5fd84259d66Cd46123540766Be93DFE6D43130D7'),
  ]),
  evmNetwork(80002, 'Polygon Amoy', 64, 2_000, 'https://amoy.polygonscan.com', [
    evmToken(80002, 'USDC', '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582'),
  ]),
  {
    // Explorers address devnet transactions with a query (`?cluster=devnet`), which `<explorerUrl>/tx/<hash>` cannot
    // carry: no transaction link.
    caip2: SOLANA_DEVNET,
    namespace: 'solana',
    name: 'Solana Devnet',
    confirmations: 1,
    blockTimeMs: 400,
    tokens: [splToken('USDC', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', SOLANA_DEVNET)],
  },
];
