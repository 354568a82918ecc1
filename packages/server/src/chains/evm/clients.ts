import { createPublicClient, defineChain, http, type HttpTransportConfig, type PublicClient } from 'viem';
import type { NetworkInfo } from '../registry.ts';
import type { Eip1559Fees } from './replacementFees.ts';

/** The numeric EIP-155 chain id of a network (`eip155:8453` -> 8453). */
export function evmChainId(network: NetworkInfo): number {
  const [namespace, reference] = network.caip2.split(':');
  if (namespace !== 'eip155' || !reference) throw new Error(`${network.caip2} is not an EVM network`);
  return Number(reference);
}

function viemChain(network: NetworkInfo) {
  if (!network.rpcUrl) throw new Error(`${network.caip2} has no RPC URL`);
  return defineChain({
    id: evmChainId(network),
    name: network.name,
    nativeCurrency: { name: 'Native', symbol: 'NATIVE', decimals: 18 },
    rpcUrls: { default: { http: [network.rpcUrl] } },
  });
}

/**
 * A read client for a network. Contract reads issued in the same tick are one Multicall3 call (deployless: its code
 * is sent with the call, so no chain needs it deployed), and all requests of a tick go out as one JSON-RPC batch:
 * reading a buyer's balances of every token is one call and one round trip, and hosted nodes bill per call.
 */
export function createEvmPublicClient(
  network: NetworkInfo,
  transport: Omit<HttpTransportConfig, 'batch'> = {},
): PublicClient {
  const chain = viemChain(network);
  return createPublicClient({
    chain,
    batch: { multicall: { deployless: true } },
    transport: http(network.rpcUrl, { ...transport, batch: { batchSize: 1000, wait: 0 } }),
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
