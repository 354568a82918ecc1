import type { Address, PublicClient } from 'viem';
import { memoised } from '../../memo.ts';
import { privateKeyToAccount } from 'viem/accounts';
import { type ChainAdapter, type ChainAdapterOptions, clamp, type Payability } from '../chainAdapter.ts';
import type { ChainFollower } from '../chainFollowers.ts';
import type { NetworkInfo, TokenInfo } from '../registry.ts';
import { readBalances, readPermit2Allowances } from './balances.ts';
import { EvmClients } from './clients.ts';
import { CollectorInflowFollower } from './collectorInflows.ts';
import { type DepositHandler, DepositScanner } from './deposits/depositScanner.ts';
import { DepositSweeper } from './deposits/sweeper.ts';
import type { DepositTransfer } from './deposits/nativeTransfers.ts';
import { type Eip2612Domain, readEip2612Domain } from './eip2612.ts';
import { type Eip3009Token, readEip3009Token } from './eip3009.ts';
import { EvmFollower, type FollowerStep } from './follower.ts';
import { NATIVE_TRANSFER_GAS } from './nativeTransfer.ts';
import { Relayer } from './relayer.ts';

/** Gas of an ERC-20 `approve` (about 46,000 for common tokens), with room for tokens that spend more. */
const APPROVAL_GAS = 100_000n;

/** The EVM chain services: one collector account for every network, its relayer, the node clients and followers. */
export interface EvmChain extends ChainAdapter {
  clients: EvmClients;
  relayer: Relayer;
  collector: Address;
  /** The token's EIP-712 domain as its contract reports it, read once per token. */
  eip3009Token(client: PublicClient, token: TokenInfo): Promise<Eip3009Token>;
  /** The EIP-712 domain an EIP-2612 token's permits are signed in, read once per token. */
  eip2612Domain(client: PublicClient, token: TokenInfo): Promise<Eip2612Domain>;
}

/**
 * While something is open: right after a new block, rest for most of a block time, then look eight times a block
 * until the next one comes, so a block is seen soon after it is made at two or three calls per block; while
 * everything open only waits for depth, rest until a block before the first is due. Otherwise once a block.
 */
function nextStepInMs(network: NetworkInfo, step: FollowerStep): number {
  if (!step.busy) return clamp(network.blockTimeMs, 250, 12_000);
  if (step.blocksUntilDue !== undefined && step.blocksUntilDue > 1)
    return (step.blocksUntilDue - 1) * network.blockTimeMs;
  if (step.blocksRead > 0) return clamp(network.blockTimeMs * 0.75, 50, 10_000);
  return clamp(network.blockTimeMs / 8, 50, 2_000);
}

/**
 * Reads, in one batched round trip, every owner's balance of every token, its native coin balance and its Permit2
 * allowances, and takes the network's current fees: the service pays the gas of EIP-3009 and Permit2 transfers,
 * but the buyer pays for its own Permit2 approval and native transfer, and a node accepts a transaction only from
 * an account that holds its value plus its gas at the maximum fee.
 */
async function readPayability(
  clients: EvmClients,
  network: NetworkInfo,
  owners: string[],
  tokens: TokenInfo[],
): Promise<Payability> {
  const client = clients.for(network);
  const permit2Tokens = tokens.filter((token) => token.method === 'permit2');
  const [balances, allowances, nativeBalances, { maxFeePerGas: gasPrice }] = await Promise.all([
    readBalances(
      client,
      owners,
      tokens.filter((token) => token.method !== 'native'),
    ),
    readPermit2Allowances(client, owners, permit2Tokens),
    Promise.all(
      owners.map(
        async (owner) => [owner.toLowerCase(), await client.getBalance({ address: owner as Address })] as const,
      ),
    ),
    clients.currentFees(network),
  ]);
  const nativeOf = new Map(nativeBalances);
  const coins = (owner: string) => nativeOf.get(owner.toLowerCase()) ?? 0n;
  const needsApproval = (owner: string, token: TokenInfo, amount: bigint) =>
    token.method === 'permit2' && allowances.of(owner, token) < amount;
  return {
    needsApproval,
    canPay: (owner, token, amount) => {
      if (token.method === 'native') return coins(owner) >= amount + NATIVE_TRANSFER_GAS * gasPrice;
      if (balances.of(owner, token) < amount) return false;
      return !needsApproval(owner, token, amount) || coins(owner) >= APPROVAL_GAS * gasPrice;
    },
  };
}

/**
 * Blocks above depth are worth a read of their own only where reaching depth takes long (Ethereum's 12 blocks,
 * Polygon's 64): a buyer paying just before expiry should not see the payment expire while the block deepens. Where
 * depth comes within seconds, the extra `eth_getLogs` per step buys nothing.
 */
const SEEN_ABOVE_DEPTH_MIN_MS = 30_000;

function depthTakesLong(network: NetworkInfo): boolean {
  return network.confirmations * network.blockTimeMs >= SEEN_ABOVE_DEPTH_MIN_MS;
}

export function startEvmChain(
  options: ChainAdapterOptions & {
    privateKey: `0x${string}`;
    /** What a transfer to a payment's deposit address means; deposit addresses are not followed without it. */
    onDeposit?: DepositHandler;
    /** What such a transfer in a block above depth means, on networks deeper than one block. */
    onDepositSeen?: DepositHandler;
    /** Whether address screening blocks a deposit's sender (see `DepositScanner`); unscreened without it. */
    screenDepositSender?: (transfer: DepositTransfer) => Promise<boolean>;
    /**
     * Judges a network's transfers into the collector found so far against the service's records; the collector's
     * inflows are not followed without it.
     */
    judgeCollectorInflows?: (chain: string) => Promise<unknown>;
  },
): EvmChain {
  const { db, networks, onFinal, clock, log } = options;
  const clients = new EvmClients();
  // Networks on which a transaction was stored since their follower's last pass: an idle follower rests a block
  // time between passes, and would otherwise see the transaction's block up to a block time late.
  const recordedSincePass = new Set<string>();
  const relayer = new Relayer({
    db,
    networks,
    privateKey: options.privateKey,
    clients,
    onFinal,
    onRecorded: (chain) => recordedSincePass.add(chain),
    log,
  });
  const followers = networks
    .filter((network) => network.rpcUrl)
    .flatMap((network): ChainFollower[] => {
      const follower = new EvmFollower({
        db,
        network,
        client: clients.for(network),
        relayer,
        onFinal,
        clock,
        log,
      });
      const { onDeposit, onDepositSeen } = options;
      const deposits =
        onDeposit &&
        new DepositScanner({
          db,
          network,
          client: clients.for(network),
          onDeposit,
          ...(onDepositSeen && depthTakesLong(network) ? { onSeen: onDepositSeen } : {}),
          ...(options.screenDepositSender ? { screenSender: options.screenDepositSender } : {}),
          clock,
          ...(log ? { log } : {}),
        });
      const { judgeCollectorInflows } = options;
      const inflows =
        judgeCollectorInflows &&
        new CollectorInflowFollower({
          db,
          network,
          client: clients.for(network),
          collector: privateKeyToAccount(options.privateKey).address,
          ...(log ? { log } : {}),
        });
      const sweeper =
        onDeposit &&
        new DepositSweeper({ db, network, client: clients.for(network), relayer, ...(log ? { log } : {}) });
      // A pass made because a transaction was just stored, not because a block was due.
      let woken = false;
      const transactions: ChainFollower = {
        chain: network.caip2,
        takeNewWork: () => {
          woken = recordedSincePass.delete(network.caip2) || woken;
          return woken;
        },
        step: async () => {
          const wokenPass = woken;
          woken = false;
          const step = await follower.step();
          await sweeper?.step().catch((error: unknown) => {
            log?.warn(`sweeping deposits on ${network.caip2} failed: ${(error as Error).message}`);
          });
          // The rest after a block assumes the pass came right after it; a woken pass may come late in the block
          // time, so it looks for the next block at once instead.
          return { nextStepInMs: nextStepInMs(network, wokenPass ? { ...step, blocksRead: 0 } : step) };
        },
      };
      if (!deposits && !inflows) return [transactions];
      const client = clients.for(network);
      const depositReads: ChainFollower = {
        chain: network.caip2,
        part: 'deposits',
        step: async () => {
          const head = await client.getBlockNumber({ cacheTime: 0 });
          const depositsRead = await deposits?.step(head).catch((error: unknown) => {
            log?.warn(`following deposits on ${network.caip2} failed: ${(error as Error).message}`);
            return { caughtUp: false, failed: true };
          });
          // While the deposit scanner is behind (a slow or failing node), its reads come first: a buyer's payment
          // waits on them, while an inflow waits for its judgement for minutes anyway.
          if (inflows && judgeCollectorInflows && (depositsRead?.caughtUp ?? true)) {
            await inflows
              .step(head)
              .then(() => judgeCollectorInflows(network.caip2))
              .catch((error: unknown) => {
                log?.warn(`following the collector's inflows on ${network.caip2} failed: ${(error as Error).message}`);
              });
          }
          // Behind, the next step at once; after a failure or once caught up, when the next block is due.
          const behind = depositsRead && !depositsRead.caughtUp && !('failed' in depositsRead);
          return { nextStepInMs: behind ? 0 : clamp(network.blockTimeMs, 250, 12_000) };
        },
      };
      return [transactions, depositReads];
    });
  const domains = new Map<string, Promise<Eip3009Token>>();
  const permitDomains = new Map<string, Promise<Eip2612Domain>>();
  return {
    clients,
    relayer,
    collector: privateKeyToAccount(options.privateKey).address,
    followers,
    payability: (network, owners, tokens) => readPayability(clients, network, owners, tokens),
    eip3009Token: (client, token) =>
      memoised(domains, token.caip19, () => readEip3009Token(client, token.address as Address, token.eip712Version)),
    eip2612Domain: (client, token) =>
      memoised(permitDomains, token.caip19, () => readEip2612Domain(client, token.address as Address)),
  };
}
