import type { Address, PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { CollectorKeys } from '../chains/collectorKeys.ts';
import { EvmClients, type Eip3009Token, readEip3009Token, Relayer } from '../chains/evm/index.ts';
import type { PriceSource } from '../chains/prices/priceSource.ts';
import type { NetworkInfo, TokenInfo } from '../chains/registry.ts';
import { type SolanaCollector, solanaCollector } from '../chains/solana/collectorKeyPair.ts';
import { type SolanaRpc, solanaRpc } from '../chains/solana/rpc.ts';
import { SolanaTransactionSender } from '../chains/solana/transactionSender.ts';
import type { Db } from '../db/database.ts';
import { repeatEvery } from '../jobs/repeatEvery.ts';

export interface SolanaNetworkServices {
  rpc: SolanaRpc;
  sender: SolanaTransactionSender;
}

/** The chain services the gateway pays through: one collector per namespace, its senders, and prices. */
export interface GatewayServices {
  prices: PriceSource;
  evm: { clients: EvmClients; relayer: Relayer; collector: Address };
  solana: { collector: SolanaCollector; networks: Map<string, SolanaNetworkServices> };
  /** How often the job that submits a confirmed payment runs before the payment is marked failed. */
  submitMaxAttempts: number;
  /** The token's EIP-712 domain as its contract reports it, read once per token. */
  eip3009Token(client: PublicClient, token: TokenInfo): Promise<Eip3009Token>;
  /**
   * Sends, tracks and settles the transactions any process journaled, on every chain, every `intervalMs` until
   * stopped: what a crashed process left half done is finished by the others.
   */
  reconcileEvery(intervalMs: number): { stop(): Promise<void> };
}

export interface GatewayServicesOptions {
  db: Db;
  networks: NetworkInfo[];
  keys: CollectorKeys;
  prices: PriceSource;
  /** Attempts of the submission job (retried with exponential backoff); 25 unless given. */
  submitMaxAttempts?: number;
  onProblem?: (message: string) => void;
}



export async function createGatewayServices(options: GatewayServicesOptions): Promise<GatewayServices> {
  const clients = new EvmClients();
  const relayer = new Relayer({
    db: options.db,
    networks: options.networks,
    privateKey: options.keys.evmPrivateKey,
    clients,
    ...(options.onProblem ? { onProblem: options.onProblem } : {}),
  });
  const collector = await solanaCollector(options.keys);
  const networks = new Map<string, SolanaNetworkServices>();
  for (const network of options.networks) {
    if (network.namespace !== 'solana' || !network.rpcUrl) continue;
    const rpc = solanaRpc(network.rpcUrl);
    const sender = new SolanaTransactionSender({
      db: options.db,
      rpc,
      network: network.caip2,
      collector,
      commitment: 'confirmed',
      pollIntervalMs: Math.max(100, Math.min(network.blockTimeMs, 1000)),
    });
    networks.set(network.caip2, { rpc, sender });
  }
  const domains = new Map<string, Promise<Eip3009Token>>();
  const onProblem = options.onProblem ?? (() => {});
  return {
    prices: options.prices,
    submitMaxAttempts: options.submitMaxAttempts ?? 25,
    evm: { clients, relayer, collector: privateKeyToAccount(options.keys.evmPrivateKey).address },
    solana: { collector, networks },
    eip3009Token: (client, token) => {
      let domain = domains.get(token.caip19);
      if (!domain) {
        domain = readEip3009Token(client, token.address as Address);
        domain.catch(() => domains.delete(token.caip19));
        domains.set(token.caip19, domain);
      }
      return domain;
    },
    reconcileEvery: (intervalMs) => {
      const evm = relayer.reconcileEvery(intervalMs);
      const solana = repeatEvery(
        () => Promise.all([...networks.values()].map(({ sender }) => sender.reconcile())),
        intervalMs,
        (error) => onProblem(`Solana reconcile failed: ${error.message}`),
      );
      return { stop: async () => void (await Promise.all([evm.stop(), solana.stop()])) };
    },
  };
}
