import { type AccountId, type AssetId, type Namespace, parseAccountId, parseAssetId, sameAddress } from './caip.ts';

/** How a buyer pays with a token (D11, D12). */
export type PaymentMethod = 'eip3009' | 'eip2612' | 'permit2' | 'native' | 'spl';

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
  /** The symbol a rate source prices the token by, where not its own: a wrapped coin is priced as the coin. */
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

/** What a token is wherever it is deployed: its symbol, name, decimals and peg or price. */
export type TokenKind = Pick<TokenInfo, 'symbol' | 'name' | 'decimals' | 'peggedTo' | 'priceSymbol'>;

/** How one deployment of a token is paid, from what its contract implements. */
export type TokenPayment = Pick<TokenInfo, 'method' | 'supports' | 'eip712Version'>;

/** An ERC-20 token of an EVM network. */
export function erc20Token(chainId: number, address: string, kind: TokenKind, payment: TokenPayment): TokenInfo {
  return { caip19: `eip155:${chainId}/erc20:${address}`, chain: `eip155:${chainId}`, address, ...kind, ...payment };
}

/** An SPL token of a Solana network. */
export function splToken(chain: string, mint: string, kind: TokenKind): TokenInfo {
  return { caip19: `${chain}/token:${mint}`, chain, address: mint, ...kind, method: 'spl' };
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
