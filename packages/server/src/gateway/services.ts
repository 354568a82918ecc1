import type { Address, PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ChainFollower } from '../chains/chainFollowers.ts';
import type { CollectorKeys } from '../chains/collectorKeys.ts';
import { EvmFollower, type FollowerStep } from '../chains/evm/follower.ts';
import { EvmClients, type Eip3009Token, readEip3009Token, Relayer } from '../chains/evm/index.ts';
import type { PriceSource } from '../chains/prices/priceSource.ts';
import { ChainRegistry, type NetworkInfo, type TokenInfo } from '../chains/registry.ts';
import { type SolanaCollector, solanaCollector } from '../chains/solana/collectorKeyPair.ts';
import { type SolanaRpc, solanaRpc } from '../chains/solana/rpc.ts';
import { commitmentFor, SolanaTransactionSender } from '../chains/solana/transactionSender.ts';
import type { Db } from '../db/database.ts';
import { paymentTransferOutcomes } from './transferOutcomes.ts';

export interface SolanaNetworkServices {
  rpc: SolanaRpc;
  sender: SolanaTransactionSender;
}

/** The chain services the gateway pays through: one collector per namespace, its senders, and prices. */
export interface GatewayServices {
  prices: PriceSource;
  evm: { clients: EvmClients; relayer: Relayer; collector: Address };
  solana: { collector: SolanaCollector; networks: Map<string, SolanaNetworkServices> };
  /** How often a confirmed payment's submission is tried (with backoff) before the payment is marked failed. */
  submitMaxAttempts: number;
  /** How long a payment waits for a transaction the buyer sends itself (a native transfer, a Permit2 approval) to be mined. */
  buyerTransferDeadlineMs: number;
  /** One follower per network, which moves every open transaction of that network forward (see ChainFollowers). */
  followers: ChainFollower[];
  /** The token's EIP-712 domain as its contract reports it, read once per token. */
  eip3009Token(client: PublicClient, token: TokenInfo): Promise<Eip3009Token>;
}

export interface GatewayServicesOptions {
  db: Db;
  networks: NetworkInfo[];
  keys: CollectorKeys;
  prices: PriceSource;
  /** Attempts of a payment's submission (retried with exponential backoff); 25 unless given. */
  submitMaxAttempts?: number;
  /** How long a buyer's own transfer named by a confirm may take to be mined; 15 minutes unless given. */
  buyerTransferDeadlineMs?: number;
  /** Links in the events of payment changes name the service's base URL, known once it listens. */
  baseUrl?: () => string;
  clock?: { now(): Date };
  onProblem?: (message: string) => void;
}

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);

/**
 * While something is open: right after a new block, rest for most of a block time, then look eight times a block
 * until the next one comes, so a block is seen soon after it is made at two or three calls per block; while
 * everything open only waits for depth, rest until a block before the first is due. Otherwise once a block.
 */
function nextEvmStepInMs(network: NetworkInfo, step: FollowerStep): number {
  if (!step.busy) return clamp(network.blockTimeMs, 250, 12_000);
  if (step.blocksUntilDue !== undefined && step.blocksUntilDue > 1) return (step.blocksUntilDue - 1) * network.blockTimeMs;
  if (step.blocksRead > 0) return clamp(network.blockTimeMs * 0.75, 50, 10_000);
  return clamp(network.blockTimeMs / 8, 50, 2_000);
}

export async function createGatewayServices(options: GatewayServicesOptions): Promise<GatewayServices> {
  const onProblem = options.onProblem ?? (() => {});
  const clock = options.clock ?? { now: () => new Date() };
  const onFinal = paymentTransferOutcomes({ chains: new ChainRegistry(options.networks), baseUrl: options.baseUrl ?? (() => ''), clock, onProblem });
  const clients = new EvmClients();
  const relayer = new Relayer({ db: options.db, networks: options.networks, privateKey: options.keys.evmPrivateKey, clients, onFinal, onProblem });
  const followers: ChainFollower[] = [];
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
      commitment: commitmentFor(network.confirmations),
      pollIntervalMs: clamp(network.blockTimeMs, 100, 1000),
      onFinal,
    });
    networks.set(network.caip2, { rpc, sender });
    followers.push({
      chain: network.caip2,
      // One status poll per slot while something is open: the batched statuses cost the same for one or 256.
      step: async () => ({ nextStepInMs: (await sender.follow()).busy ? clamp(network.blockTimeMs, 100, 1000) : 1000 }),
    });
  }
  for (const network of options.networks) {
    if (network.namespace !== 'eip155' || !network.rpcUrl) continue;
    const follower = new EvmFollower({ db: options.db, network, client: clients.for(network), relayer, onFinal, clock, onProblem });
    followers.push({
      chain: network.caip2,
      step: async () => ({ nextStepInMs: nextEvmStepInMs(network, await follower.step()) }),
    });
  }
  const domains = new Map<string, Promise<Eip3009Token>>();
  return {
    prices: options.prices,
    submitMaxAttempts: options.submitMaxAttempts ?? 25,
    buyerTransferDeadlineMs: options.buyerTransferDeadlineMs ?? 15 * 60_000,
    followers,
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
  };
}
