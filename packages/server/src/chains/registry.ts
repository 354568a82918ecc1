import { type AccountId, type AssetId, type Namespace, parseAccountId, parseAssetId, sameAddress } from './caip.ts';

/** How a buyer pays with a token (D11, D12). */
export type PaymentMethod = 'eip3009' | 'permit2' | 'native' | 'spl';

export interface TokenInfo {
  caip19: string;
  chain: string;
  symbol: string;
  name: string;
  decimals: number;
  /** Contract address or mint; empty for a native coin. */
  address: string;
  method: PaymentMethod;
  /** The ISO 4217 currency the token is pegged to (D13); unpegged tokens are priced by a rate source. */
  peggedTo?: string;
  /** The symbol the rate source prices an unpegged token by, where not its own: a wrapped coin is priced as the coin. */
  priceSymbol?: string;
  /**
   * The signed-transfer standards the token's contract implements, as its published source shows: how it could be
   * paid besides `method` (an EIP-2612 token could move to a permit method in one line). Absent where unconfirmed.
   */
  supports?: SignedTransferStandard[];
  /**
   * The EIP-712 domain version of an EIP-3009 token whose contract reports it neither by `version()` nor by
   * EIP-5267's `eip712Domain()`, as its source fixes it.
   */
  eip712Version?: string;
  iconUrl?: string;
}

/** EIP-3009 authorisations (`receiveWithAuthorization`) and EIP-2612 permits. */
export type SignedTransferStandard = 'eip3009' | 'eip2612';

export interface NetworkInfo {
  caip2: string;
  namespace: Namespace;
  name: string;
  /** The JSON-RPC URL, or several separated by commas, tried in that order (`rpcUrlList`); never shown. */
  rpcUrl?: string;
  confirmations: number;
  blockTimeMs: number;
  iconUrl?: string;
  /** A block explorer whose transaction pages are at `<explorerUrl>/tx/<hash>`; none on local chains. */
  explorerUrl?: string;
  tokens: TokenInfo[];
}

/** The URLs of a network's `rpcUrl`, in the order they are tried. */
export function rpcUrlList(rpcUrl: string): string[] {
  return rpcUrl
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
}

/** The networks and tokens this service accepts, with lookups by CAIP id. */
export class ChainRegistry {
  private readonly byChain = new Map<string, NetworkInfo>();

  constructor(readonly networks: NetworkInfo[]) {
    for (const network of networks) this.byChain.set(network.caip2, network);
  }

  network(caip2: string): NetworkInfo | undefined {
    return this.byChain.get(caip2);
  }

  tokens(): TokenInfo[] {
    return this.networks.flatMap((network) => network.tokens);
  }

  /** The supported token named by a CAIP-19 id, matching EVM contract addresses case-insensitively. */
  token(caip19: string): TokenInfo | undefined {
    const asset = parseAssetId(caip19);
    if (!asset) return undefined;
    return this.network(asset.caip2)?.tokens.find((token) => matchesAsset(token, asset));
  }

  /** A CAIP-10 account on a configured network, with a valid address. */
  account(caip10: string): AccountId | undefined {
    const account = parseAccountId(caip10);
    return account && this.byChain.has(account.caip2) ? account : undefined;
  }
}

function matchesAsset(token: TokenInfo, asset: AssetId): boolean {
  const [assetNamespace, reference] = token.caip19.slice(token.chain.length + 1).split(':');
  return (
    assetNamespace === asset.assetNamespace &&
    reference !== undefined &&
    sameAddress(asset.namespace, reference, asset.assetReference)
  );
}

export function evmToken(chainId: number, symbol: 'USDC' | 'EURC' | 'USDT', address: string): TokenInfo {
  const names = { USDC: 'USD Coin', EURC: 'Euro Coin', USDT: 'Tether USD' };
  return {
    caip19: `eip155:${chainId}/erc20:${address}`,
    chain: `eip155:${chainId}`,
    symbol,
    name: names[symbol],
    decimals: 6,
    address,
    method: symbol === 'USDT' ? 'permit2' : 'eip3009',
    peggedTo: symbol === 'EURC' ? 'EUR' : 'USD',
  };
}

export function evmNetwork(
  chainId: number,
  name: string,
  confirmations: number,
  blockTimeMs: number,
  explorerUrl: string,
  tokens: TokenInfo[],
): NetworkInfo {
  return {
    caip2: `eip155:${chainId}`,
    namespace: 'eip155',
    name,
    confirmations,
    blockTimeMs,
    explorerUrl,
    tokens,
  };
}

const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

export function splToken(symbol: 'USDC' | 'EURC' | 'USDT', mint: string, chain = SOLANA_MAINNET): TokenInfo {
  const names = { USDC: 'USD Coin', EURC: 'Euro Coin', USDT: 'Tether USD' };
  return {
    caip19: `${chain}/token:${mint}`,
    chain,
    symbol,
    name: names[symbol],
    decimals: 6,
    address: mint,
    method: 'spl',
    peggedTo: symbol === 'EURC' ? 'EUR' : 'USD',
  };
}

/** The real mainnet stablecoins; RPC URLs come from configuration. */
export const MAINNET_NETWORKS: NetworkInfo[] = [
  evmNetwork(1, 'Ethereum', 12, 12_000, 'https://etherscan.io', [
    evmToken(1, 'USDC', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
    evmToken(1, 'EURC', '0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c'),
    evmToken(1, 'USDT', '0xdAC17F958D2ee523a2206206994597C13D831ec7'),
  ]),
  evmNetwork(8453, 'Base', 5, 2_000, 'https://basescan.org', [
    evmToken(8453, 'USDC', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
    evmToken(8453, 'EURC', '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42'),
    evmToken(8453, 'USDT', '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2'),
  ]),
  evmNetwork(42161, 'Arbitrum One', 5, 250, 'https://arbiscan.io', [
    evmToken(42161, 'USDC', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831'),
    evmToken(42161, 'USDT', '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9'),
  ]),
  evmNetwork(10, 'OP Mainnet', 5, 2_000, 'https://optimistic.etherscan.io', [
    evmToken(10, 'USDC', '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85'),
    evmToken(10, 'USDT', '0x94b008aA00579c1307B0EF2c499aD98a8ce58e58'),
  ]),
  evmNetwork(137, 'Polygon', 64, 2_000, 'https://polygonscan.com', [
    evmToken(137, 'USDC', '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'),
    evmToken(137, 'USDT', '0xc2132D05D31c914a87C6611C10748AEb04B58e8F'),
  ]),
  {
    caip2: SOLANA_MAINNET,
    namespace: 'solana',
    name: 'Solana',
    confirmations: 1,
    blockTimeMs: 400,
    explorerUrl: 'https://solscan.io',
    tokens: [
      splToken('USDC', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
      splToken('EURC', 'HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr'),
      splToken('USDT', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'),
    ],
  },
];
