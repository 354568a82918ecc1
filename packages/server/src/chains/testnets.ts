import { erc20Token as erc20, evmNetwork, type NetworkInfo, splToken } from './registry.ts';
import { CIRCLE_FIAT_TOKEN, EURC, USDC } from './tokens.ts';

const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

/**
 * The public testnets (`CHAINS=testnet`) with Circle's testnet USDC, and EURC where Circle issues it (Ethereum
 * Sepolia, Base Sepolia). Tokens with no value, on networks that behave like their mainnets: the same depths and
 * block times as the mainnet preset. RPC URLs come from configuration, as on mainnet. The other issuers' testnet
 * tokens, and USDC on Monad's testnet, are left out: no address of theirs could be confirmed.
 */
export const TESTNET_NETWORKS: NetworkInfo[] = [
  evmNetwork(11155111, 'Ethereum Sepolia', 12, 12_000, 'https://sepolia.etherscan.io', [
    erc20(11155111, '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', USDC, CIRCLE_FIAT_TOKEN),
    erc20(11155111, '0x08210F9170F89Ab7658F0B5E3fF39b0E03C594D4', EURC, CIRCLE_FIAT_TOKEN),
  ]),
  evmNetwork(84532, 'Base Sepolia', 5, 2_000, 'https://sepolia.basescan.org', [
    erc20(84532, '0x036CbD53842c5426634e7929541eC2318f3dCF7e', USDC, CIRCLE_FIAT_TOKEN),
    erc20(84532, '0x808456652fdb597867f38412077A9182bf77359F', EURC, CIRCLE_FIAT_TOKEN),
  ]),
  evmNetwork(421614, 'Arbitrum Sepolia', 5, 250, 'https://sepolia.arbiscan.io', [
    erc20(421614, '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d', USDC, CIRCLE_FIAT_TOKEN),
  ]),
  evmNetwork(11155420, 'OP Sepolia', 5, 2_000, 'https://sepolia-optimism.etherscan.io', [
    erc20(11155420, '0x5fd84259d66Cd46123540766Be93DFE6D43130D7', USDC, CIRCLE_FIAT_TOKEN),
  ]),
  evmNetwork(80002, 'Polygon Amoy', 64, 2_000, 'https://amoy.polygonscan.com', [
    erc20(80002, '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582', USDC, CIRCLE_FIAT_TOKEN),
  ]),
  {
    // Celo Sepolia has Celo's chain properties (docs.celo.org, deployments). Its USDC is the one x402's own EVM
    // package (@x402/evm) lists for it; no explorer of Celo's own was confirmed, so no transaction link.
    caip2: 'eip155:11142220',
    namespace: 'eip155',
    name: 'Celo Sepolia',
    confirmations: 10,
    blockTimeMs: 1_000,
    tokens: [erc20(11142220, '0x01C5C0122039549AD1493B8220cABEdD739BC44E', USDC, CIRCLE_FIAT_TOKEN)],
  },
  {
    // Explorers address devnet transactions with a query (`?cluster=devnet`), which `<explorerUrl>/tx/<hash>` cannot
    // carry: no transaction link.
    caip2: SOLANA_DEVNET,
    namespace: 'solana',
    name: 'Solana Devnet',
    confirmations: 1,
    blockTimeMs: 400,
    tokens: [splToken(SOLANA_DEVNET, '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', USDC)],
  },
];
