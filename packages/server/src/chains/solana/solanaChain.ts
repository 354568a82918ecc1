import { type ChainAdapter, type ChainAdapterOptions, clamp } from '../chainAdapter.ts';
import type { SolanaCollector } from './collectorKeyPair.ts';
import { readSolanaBalances } from './readSolanaBalances.ts';
import { type SolanaRpc, solanaRpc } from './rpc.ts';
import { sharedFor } from '../../memo.ts';
import { SolanaCollectorInflowFollower } from './collectorInflows.ts';
import { SolanaPayFollower, type SolanaPayTransferHandler } from './solanaPayFollower.ts';
import { commitmentFor, SolanaTransactionSender } from './transactionSender.ts';
import { X402MerchantAccounts } from './x402MerchantAccounts.ts';

export interface SolanaNetworkServices {
  rpc: SolanaRpc;
  sender: SolanaTransactionSender;
  /**
   * The `confirmed` block height, read at most once per slot and shared: a crowd's confirms and submissions check
   * their transactions' lifetimes with one call per slot, not one each.
   */
  blockHeight: () => Promise<bigint>;
  /** The merchants' x402 token accounts: created before they are paid, swept into the collector's. */
  x402Accounts: X402MerchantAccounts;
}

/** The Solana chain services: one collector key pair, and per network its RPC client and journaled sender. */
export interface SolanaChain extends ChainAdapter {
  collector: SolanaCollector;
  networks: Map<string, SolanaNetworkServices>;
}

export interface SolanaChainOptions extends ChainAdapterOptions {
  collector: SolanaCollector;
  /** What a transfer carrying a Solana Pay request's reference means; without it, no such transfers are looked for. */
  onSolanaPayTransfer?: SolanaPayTransferHandler;
  /** Whether address screening blocks a Solana Pay transfer's sender (see `SolanaPayFollower`); unscreened without it. */
  screenSolanaPaySender?: (sender: string, paymentId: string) => Promise<boolean>;
  /**
   * Judges a network's transfers into the collector found so far against the service's records; the collector's
   * inflows are not followed without it.
   */
  judgeCollectorInflows?: (chain: string) => Promise<unknown>;
}

/** How often the collector's accounts are read for transfers into them: a few reads per pass, whatever the load. */
const INFLOW_READ_MS = 2_000;
/** How often the merchants' x402 token accounts are looked at for deposits to sweep. */
const X402_SWEEP_MS = 2_000;

export function startSolanaChain(options: SolanaChainOptions): SolanaChain {
  const { db, collector, onFinal, onSolanaPayTransfer, log } = options;
  const networks = new Map<string, SolanaNetworkServices>();
  const followers = options.networks.flatMap((network) => {
    if (!network.rpcUrl) return [];
    const rpc = solanaRpc(network.rpcUrl, { network: network.caip2 });
    const slotMs = clamp(network.blockTimeMs, 100, 1000);
    const blockHeight = sharedFor(slotMs, () => rpc.getBlockHeight({ commitment: 'confirmed' }).send());
    const sender = new SolanaTransactionSender({
      db,
      rpc,
      blockHeight,
      network: network.caip2,
      collector,
      commitment: commitmentFor(network.confirmations),
      onFinal,
      log,
    });
    const x402Accounts = new X402MerchantAccounts({ db, rpc, sender, network: network.caip2, collector, log });
    networks.set(network.caip2, { rpc, sender, blockHeight, x402Accounts });
    const splTokens = network.tokens.filter((token) => token.method === 'spl');
    // At most one sweep per interval, whatever the follower's pace; a pass that comes while one runs waits for it.
    const sweepX402Accounts = sharedFor(X402_SWEEP_MS, () =>
      x402Accounts.sweep(splTokens).catch((error: unknown) => {
        log.warn(`sweeping x402 token accounts on ${network.caip2} failed: ${(error as Error).message}`);
      }),
    );
    const solanaPay =
      onSolanaPayTransfer &&
      new SolanaPayFollower({
        db,
        rpc,
        network: network.caip2,
        collector: collector.address,
        commitment: commitmentFor(network.confirmations),
        tokens: network.tokens
          .filter((token) => token.method === 'spl')
          .map((token) => ({ mint: token.address, asset: token.caip19 })),
        clock: options.clock,
        blockHeight,
        onTransfer: onSolanaPayTransfer,
        ...(options.screenSolanaPaySender ? { screenSender: options.screenSolanaPaySender } : {}),
      });
    const { judgeCollectorInflows } = options;
    const inflows =
      judgeCollectorInflows &&
      new SolanaCollectorInflowFollower({
        db,
        rpc,
        network,
        collector: collector.address,
        commitment: commitmentFor(network.confirmations),
      });
    const followInflows = sharedFor(INFLOW_READ_MS, async () => {
      if (!inflows || !judgeCollectorInflows) return;
      await inflows
        .step()
        .then(() => judgeCollectorInflows(network.caip2))
        .catch((error: unknown) => {
          log.warn(`following the collector's inflows on ${network.caip2} failed: ${(error as Error).message}`);
        });
    });
    const followSolanaPay = async () => {
      if (!solanaPay) return false;
      try {
        return (await solanaPay.follow()).busy;
      } catch (error) {
        // The journal's follower goes on; the next pass reads again from the cursor.
        log.warn(`following Solana Pay requests on ${network.caip2} failed: ${(error as Error).message}`);
        return true;
      }
    };
    // One status poll per slot while something is open: the batched statuses cost the same for one or 256; and
    // one signature read per listed mint while a Solana Pay request is open.
    return [
      {
        chain: network.caip2,
        step: async () => {
          const [journal, requests] = await Promise.all([
            sender.follow(),
            followSolanaPay(),
            followInflows(),
            sweepX402Accounts(),
          ]);
          return { nextStepInMs: journal.busy || requests ? slotMs : 1000 };
        },
      },
    ];
  });
  return {
    collector,
    networks,
    followers,
    payability: async (network, owners, tokens) => {
      const solana = networks.get(network.caip2);
      if (!solana) return null;
      const balances = await readSolanaBalances(
        solana.rpc,
        owners,
        tokens.map((token) => token.address),
      );
      return {
        canPay: (owner, token, amount) => (balances[owner]?.tokens[token.address] ?? 0n) >= amount,
        needsApproval: () => false,
      };
    },
  };
}
