import type { NetworksAnswer } from './apiTypes.ts';

/** The networks and tokens the service names (`GET /v1/networks`), with the explorers it links to. */
export class NetworkDirectory {
  private readonly tokens = new Map<string, { symbol: string; decimals: number }>();

  constructor(
    readonly networks: NetworksAnswer['networks'],
    private readonly explorerUrls: Record<string, string>,
  ) {
    for (const network of networks) {
      for (const token of network.tokens) this.tokens.set(token.asset.toLowerCase(), token);
    }
  }

  /** Every token symbol, once, for the list's token filter. */
  get symbols(): string[] {
    return [...new Set(this.networks.flatMap((network) => network.tokens.map((token) => token.symbol)))].sort();
  }

  networkName(caip2: string): string {
    return this.networks.find((network) => network.id === caip2)?.name ?? caip2;
  }

  /** A token by its CAIP-19 id (`caip19/` prefix or not). */
  token(asset: string): { symbol: string; decimals: number } | undefined {
    return this.tokens.get(asset.replace(/^caip19\//, '').toLowerCase());
  }

  /** The explorer page of a transaction on a network (`<explorer>/tx/<hash>`), where it has an http(s) explorer. */
  transactionLink(caip2: string, hash: string): string | undefined {
    const explorerUrl = this.explorerUrls[caip2];
    if (!explorerUrl) return undefined;
    let url: URL;
    try {
      url = new URL(explorerUrl);
    } catch {
      return undefined;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/tx/${encodeURIComponent(hash)}`;
    return url.toString();
  }

  /**
   * The CAIP-2 id of a transaction's network: the payment names only its reference (`8453`), so the token paid
   * (`caip19/eip155:8453/...`) tells it, else the one network with that reference.
   */
  chainOf(transaction: { networkId: string }, paidUnit: string | undefined): string | undefined {
    const fromToken = paidUnit?.replace(/^caip19\//, '').split('/')[0];
    if (fromToken) return fromToken;
    const candidates = [...this.networks.map((network) => network.id), ...Object.keys(this.explorerUrls)].filter(
      (id) => id.slice(id.indexOf(':') + 1) === transaction.networkId,
    );
    return new Set(candidates).size === 1 ? candidates[0] : undefined;
  }
}
