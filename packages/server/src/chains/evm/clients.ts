import {
  createPublicClient,
  defineChain,
  fallback,
  http,
  type HttpTransportConfig,
  type PublicClient,
  type Transport,
} from 'viem';
import { type NetworkInfo, rpcUrlList } from '../registry.ts';
import { RpcEndpoints, transportFailure, withHostOnly } from '../rpcEndpoints.ts';
import type { Eip1559Fees } from './replacementFees.ts';

/** The numeric EIP-155 chain id of a network (`eip155:8453` -> 8453). */
export function evmChainId(network: NetworkInfo): number {
  const [namespace, reference] = network.caip2.split(':');
  if (namespace !== 'eip155' || !reference) throw new Error(`${network.caip2} is not an EVM network`);
  return Number(reference);
}

function rpcUrlsOf(network: NetworkInfo): string[] {
  const urls = network.rpcUrl ? rpcUrlList(network.rpcUrl) : [];
  if (!urls.length) throw new Error(`${network.caip2} has no RPC URL`);
  return urls;
}

function viemChain(network: NetworkInfo, urls: string[]) {
  return defineChain({
    id: evmChainId(network),
    name: network.name,
    nativeCurrency: { name: 'Native', symbol: 'NATIVE', decimals: 18 },
    rpcUrls: { default: { http: urls } },
  });
}

/**
 * One URL's transport, which is passed over while the URL rests after a failure of its own (see `RpcEndpoints`),
 * and whose errors name the URL's host only.
 */
function watchedTransport(transport: Transport, endpoints: RpcEndpoints, index: number): Transport {
  const url = endpoints.urls[index] as string;
  return (parameters) => {
    const inner = transport(parameters);
    const request = (async (args, options) => {
      if (endpoints.passOver(index)) throw new Error('RPC URL resting after a failure');
      try {
        const response = await inner.request(args, options);
        endpoints.succeeded(index);
        return response;
      } catch (error) {
        const failure = transportFailure(error);
        if (failure) endpoints.failed(index, failure);
        throw withHostOnly(error, url);
      }
    }) as typeof inner.request;
    return { ...inner, request };
  };
}

/**
 * The network's URLs in order: each request goes to the first URL that is not resting and falls back to the next
 * on an error or a timeout (viem's `fallback`, unranked: the configured order is the operator's preference), and
 * the whole is retried twice with backoff. Every URL batches the JSON-RPC requests of a tick.
 */
function failoverTransport(
  network: NetworkInfo,
  urls: string[],
  transport: Omit<HttpTransportConfig, 'batch'>,
): Transport {
  const endpoints = new RpcEndpoints(network.caip2, urls);
  return fallback(
    urls.map((url, index) =>
      watchedTransport(http(url, { ...transport, batch: { batchSize: 1000, wait: 0 } }), endpoints, index),
    ),
    { rank: false, retryCount: 2 },
  );
}

/**
 * A read client for a network. Contract reads issued in the same tick are one Multicall3 call (deployless: its code
 * is sent with the call, so no chain needs it deployed), and all requests of a tick go out as one JSON-RPC batch:
 * reading a buyer's balances of every token is one call and one round trip, and hosted nodes bill per call.
 * With several RPC URLs, requests fall back from one to the next (`failoverTransport`).
 */
export function createEvmPublicClient(
  network: NetworkInfo,
  transport: Omit<HttpTransportConfig, 'batch'> = {},
): PublicClient {
  const urls = rpcUrlsOf(network);
  return createPublicClient({
    chain: viemChain(network, urls),
    batch: { multicall: { deployless: true } },
    transport: failoverTransport(network, urls, transport),
    // Confirmation tracking polls receipts itself; viem's own block polling is not used.
    pollingInterval: Math.max(250, Math.min(network.blockTimeMs, 4000)),
  });
}

/** One read client per network, built on first use and shared, and the network's current fees. */
export class EvmClients {
  private readonly clients = new Map<string, PublicClient>();
  private readonly fees = new Map<string, { readAt: number; fees: Promise<Eip1559Fees> }>();

  constructor(private readonly transport: Omit<HttpTransportConfig, 'batch'> = {}) {}

  for(network: NetworkInfo): PublicClient {
    let client = this.clients.get(network.caip2);
    if (!client) {
      client = createEvmPublicClient(network, this.transport);
      this.clients.set(network.caip2, client);
    }
    return client;
  }

  /**
   * The network's fee estimate, read at most once per block time and shared by everything that needs it meanwhile
   * (the transactions the relayer signs, the gas a buyer must hold for its own transfer).
   */
  currentFees(network: NetworkInfo): Promise<Eip1559Fees> {
    const cached = this.fees.get(network.caip2);
    if (cached && Date.now() - cached.readAt < network.blockTimeMs) return cached.fees;
    const fees = this.for(network).estimateFeesPerGas();
    fees.catch(() => this.fees.delete(network.caip2));
    this.fees.set(network.caip2, { readAt: Date.now(), fees });
    return fees;
  }
}
