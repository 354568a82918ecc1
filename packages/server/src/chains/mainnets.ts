import { erc20Token as erc20, evmNetwork, type NetworkInfo, splToken } from './registry.ts';
import {
  AGORA_DOLLAR,
  AUSD,
  CIRCLE_FIAT_TOKEN,
  EURAU,
  EURC,
  EURE,
  PAXOS_TOKEN,
  PERMIT_ONLY,
  PERMIT2_ONLY,
  PYUSD,
  SOL,
  USDC,
  USDG,
  USDT,
  USDT0_ARBITRUM,
  WETH,
  WPOL,
} from './tokens.ts';

const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

/** AllUnity's EURAU has this one address on every network it is issued on. */
const EURAU_ADDRESS = '0x4933A85b5b5466Fbaf179F72D3DE273c287EC2c2';
/** Agora's AUSD has this one address on every network it is issued on. */
const AUSD_ADDRESS = '0x00000000eFE302BEAA2b3e6e1b18d08D69a9012a';
/** The OP Stack's WETH predeploy, at this address on OP Mainnet and Base alike. */
const OP_STACK_WETH = '0x4200000000000000000000000000000000000006';

/**
 * The real mainnet tokens, every token and network WalletConnect Pay accepts (its `token-and-chain-coverage` page)
 * and USDT on Base and OP Mainnet; RPC URLs come from configuration. `docs/tokens.md` lists them.
 */
export const MAINNET_NETWORKS: NetworkInfo[] = [
  evmNetwork(1, 'Ethereum', 12, 12_000, 'https://etherscan.io', [
    erc20(1, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', USDC, CIRCLE_FIAT_TOKEN),
    erc20(1, '0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c', EURC, CIRCLE_FIAT_TOKEN),
    erc20(1, '0xdAC17F958D2ee523a2206206994597C13D831ec7', USDT, PERMIT2_ONLY),
    erc20(1, '0x6c3ea9036406852006290770BEdFcAbA0e23A0e8', PYUSD, PAXOS_TOKEN),
    erc20(1, '0xe343167631d89B6Ffc58B88d6b7fB0228795491D', USDG, PAXOS_TOKEN),
    erc20(1, AUSD_ADDRESS, AUSD, AGORA_DOLLAR),
    erc20(1, EURAU_ADDRESS, EURAU, PERMIT2_ONLY),
    erc20(1, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', WETH, PERMIT2_ONLY),
  ]),
  evmNetwork(8453, 'Base', 5, 2_000, 'https://basescan.org', [
    erc20(8453, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', USDC, CIRCLE_FIAT_TOKEN),
    erc20(8453, '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42', EURC, CIRCLE_FIAT_TOKEN),
    erc20(8453, '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2', USDT, PERMIT2_ONLY),
    erc20(8453, AUSD_ADDRESS, AUSD, AGORA_DOLLAR),
    erc20(8453, EURAU_ADDRESS, EURAU, PERMIT2_ONLY),
    erc20(8453, OP_STACK_WETH, WETH, PERMIT2_ONLY),
  ]),
  evmNetwork(42161, 'Arbitrum One', 5, 250, 'https://arbiscan.io', [
    erc20(42161, '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', USDC, CIRCLE_FIAT_TOKEN),
    erc20(42161, '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', USDT, USDT0_ARBITRUM),
    // Paxos' own scripts manage a PYUSD on Arbitrum, but which implementation this address runs could not be read.
    erc20(42161, '0x46850aD61C2B7d64d08c9C754F45254596696984', PYUSD, PERMIT2_ONLY),
    erc20(42161, AUSD_ADDRESS, AUSD, AGORA_DOLLAR),
    erc20(42161, EURAU_ADDRESS, EURAU, PERMIT2_ONLY),
    erc20(42161, '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1', WETH, PERMIT_ONLY),
  ]),
  evmNetwork(10, 'OP Mainnet', 5, 2_000, 'https://optimistic.etherscan.io', [
    erc20(10, '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', USDC, CIRCLE_FIAT_TOKEN),
    erc20(10, '0x94b008aA00579c1307B0EF2c499aD98a8ce58e58', USDT, PERMIT2_ONLY),
    erc20(10, EURAU_ADDRESS, EURAU, PERMIT2_ONLY),
    erc20(10, OP_STACK_WETH, WETH, PERMIT2_ONLY),
  ]),
  evmNetwork(137, 'Polygon', 64, 2_000, 'https://polygonscan.com', [
    erc20(137, '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', USDC, CIRCLE_FIAT_TOKEN),
    erc20(137, '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', USDT, PERMIT2_ONLY),
    erc20(137, '0xE0aEa583266584DafBB3f9C3211d5588c73fEa8d', EURE, PERMIT_ONLY),
    erc20(137, EURAU_ADDRESS, EURAU, PERMIT2_ONLY),
    erc20(137, '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270', WPOL, PERMIT2_ONLY),
  ]),
  // BEP-619 (the Fermi hard fork, January 2026) made BNB Smart Chain's blocks 0.45 s; its fast finality finalises a
  // block within about two more, and 15 blocks (about 7 s) leave room for a missed vote round. The Binance-Peg
  // USDC and USDT here have 18 decimals, unlike their Ethereum originals.
  evmNetwork(56, 'BNB Smart Chain', 15, 450, 'https://bscscan.com', [
    erc20(56, '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', { ...USDC, decimals: 18 }, PERMIT2_ONLY),
    erc20(56, '0x55d398326f99059fF775485246999027B3197955', { ...USDT, decimals: 18 }, PERMIT2_ONLY),
    erc20(56, AUSD_ADDRESS, AUSD, AGORA_DOLLAR),
  ]),
  // Celo is an OP Stack L2 with 1 s blocks (docs.celo.org, deployments): 10 blocks are the 10 s that Base and OP
  // Mainnet wait. Its coin CELO is also an ERC-20 and fees may be paid in allowlisted tokens (transaction type
  // 0x7b); the collector sends ordinary transactions and pays its fees in CELO.
  evmNetwork(42220, 'Celo', 10, 1_000, 'https://celoscan.io', [
    erc20(42220, '0xcebA9300f2b948710d2653dD7B07f33A8B32118C', USDC, CIRCLE_FIAT_TOKEN),
  ]),
  // Monad's MonadBFT makes a block final two slots after it (docs.monad.xyz): 3 blocks counting its own, at 0.4 s.
  evmNetwork(143, 'Monad', 3, 400, 'https://monadscan.com', [
    erc20(143, '0x754704Bc059F8C67012fEd69BC8A327a5aafb603', USDC, CIRCLE_FIAT_TOKEN),
  ]),
  {
    caip2: SOLANA_MAINNET,
    namespace: 'solana',
    name: 'Solana',
    confirmations: 1,
    blockTimeMs: 400,
    explorerUrl: 'https://solscan.io',
    tokens: [
      splToken(SOLANA_MAINNET, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', USDC),
      splToken(SOLANA_MAINNET, 'HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr', EURC),
      splToken(SOLANA_MAINNET, 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', USDT),
      { caip19: `${SOLANA_MAINNET}/slip44:501`, chain: SOLANA_MAINNET, address: '', ...SOL, method: 'native' },
    ],
  },
];
