import {
  type Address,
  type Hex,
  keccak256,
  type PublicClient,
  type TransactionReceipt,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type { Db } from '../../db/database.ts';
import { GroupCommit } from '../../db/groupCommit.ts';
import type { NetworkInfo } from '../registry.ts';
import type { TransferOutcomeHandler } from '../transferOutcomes.ts';
import { EvmClients, evmChainId } from './clients.ts';
import { CollectorJournalBehindError } from '../collectorJournalBehind.ts';
import { type Eip1559Fees, replacementFees } from './replacementFees.ts';
import {
  attemptsOf,
  ensureNonceCounter,
  type FeeReservations,
  findTransaction,
  hasNonceCounter,
  nextJournalNonce,
  raiseNonceCounter,
  markBroadcast,
  markFailed,
  markIncludedFinal,
  markMined,
  markReorged,
  type OnFinalTransaction,
  recordReplacement,
  type NonceClaim,
  recordWithNextNonces,
  type SignedAttempt,
  type StoredAttempt,
  type StoredTransaction,
} from './relayerStore.ts';
import { nextUlid } from '../../ids.ts';
import { type Logger, silentLogger } from '../../log.ts';
import {
  lockedOperatorFunding,
  postNetworkFee,
  requireNetworkFeeFunded,
  reserveNetworkFee,
} from '../../ledger/ledger.ts';

export interface RelayRequest {
  /** CAIP-2 id of the EVM network. */
  chain: string;
  to: Address;
  data?: Hex;
  value?: bigint;
  /** What the transaction is for, e.g. `eip3009_receive`, `permit2_transfer`, `settlement`. */
  purpose: string;
  paymentId?: string;
  /** Gas a simulation of this exact call measured moments ago; estimated from the node when absent. */
  gas?: bigint;
}

/** A transaction whose gas and fees were read from the chain, ready to be given a nonce, signed and stored. */
export type PreparedTransaction = RelayRequest & {
  data: Hex;
  value: bigint;
  gas: bigint;
  fees: Eip1559Fees;
  /** The collector's nonce on the network, its pending transactions counted, read before the journal's counter. */
  chainNonce: bigint;
};

export interface RecordedTransaction {
  id: string;
  /** Hash of the first signed version; a fee-bumped replacement lands under another hash. */
  hash: Hex;
  nonce: bigint;
  rawTransaction: Hex;
}

/** What checking an open transaction did. */
export interface CheckReport {
  /** Hashes whose stored bytes were sent (again) to the node. */
  sent: Hex[];
  /** Replacements signed for stuck transactions: transaction id and new hash. */
  replaced: { id: string; hash: Hex }[];
  confirmed: string[];
  /** Reverted at depth, or their nonce was used by a transaction the relayer did not sign. */
  failed: string[];
  /** Their block left the canonical chain (receipt gone or in another block). */
  reorged: string[];
}

export interface RelayerOptions {
  db: Db;
  /** The EVM networks the relayer sends on. */
  networks: NetworkInfo[];
  /** The collector key; it signs every transaction and is never logged. */
  privateKey: Hex;
  clients?: EvmClients;
  /** A sent transaction still unmined after this long gets a fee-bumped replacement. Default: 30 block times, at least 30 s. */
  stuckAfterMs?: number;
  /** What a transaction's final state means for the service, applied in the transaction that records it. */
  onFinal?: TransferOutcomeHandler;
  /** Told the network of each transaction once it is stored, so its follower can look for it at once. */
  onRecorded?: (chain: string) => void;
  log?: Logger;
}

/** Headroom over the node's gas estimate, for state that changes between estimate and inclusion. */
function withGasHeadroom(estimate: bigint): bigint {
  return (estimate * 6n) / 5n;
}

/**
 * The network's native coin as the service lists it: the ledger keeps the operator's funding and the network fees
 * in it. A network that lists none (the mainnet presets) has nothing of it owed to anyone, so its fees are neither
 * reserved nor entered.
 */
function nativeCoinOf(network: NetworkInfo | undefined): string | undefined {
  return network?.tokens.find((token) => token.method === 'native')?.caip19;
}

function isFinal(transaction: StoredTransaction): boolean {
  return transaction.status === 'confirmed' || transaction.status === 'failed';
}

function storedFees(attempt: StoredAttempt): Eip1559Fees {
  return {
    maxFeePerGas: BigInt(attempt.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(attempt.max_priority_fee_per_gas),
  };
}

/** The transaction's receipt, or null while it is in no block (as the node sees it). */
export async function receiptOrNull(client: PublicClient, hash: Hex): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return null;
    throw error;
  }
}

/**
 * What a mined transaction cost its sender: the gas it used at its effective price, plus the L1 data fee an
 * OP-stack network's receipt states (`l1Fee`); other networks' receipts have none.
 */
export function networkFeeOf(receipt: TransactionReceipt): bigint {
  const l1Fee = (receipt as { l1Fee?: bigint | Hex | null }).l1Fee;
  return receipt.gasUsed * receipt.effectiveGasPrice + (l1Fee ? BigInt(l1Fee) : 0n);
}

async function nodeKnows(client: PublicClient, hash: Hex): Promise<boolean> {
  try {
    await client.getTransaction({ hash });
    return true;
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return false;
    throw error;
  }
}

/**
 * Sends the service's transactions from the collector. Each one is stored with its signed bytes before it is sent,
 * with a nonce taken from a counter row in PostgreSQL, so any number of processes share the key without gaps or
 * reuse, and a restart sends again exactly what was signed instead of signing something new.
 */
export class Relayer {
  readonly address: Address;
  private readonly account: PrivateKeyAccount;
  private readonly db: Db;
  private readonly clients: EvmClients;
  private readonly networks = new Map<string, NetworkInfo>();
  private readonly stuckAfterMs: number | undefined;
  private readonly log: Logger;
  private readonly onFinal: OnFinalTransaction;
  private readonly onRecorded: ((chain: string) => void) | undefined;
  /** Networks whose nonce counter row is known to exist. */
  private readonly countedNetworks = new Set<string>();
  /** Per network, the gap between the journal and the chain last reported, so each is logged once. */
  private readonly reportedJournalGaps = new Map<string, string>();
  /** Per network: transactions sent at once share one lock of the nonce counter and one database transaction. */
  private readonly nonceQueues = new Map<string, GroupCommit<NonceClaim, { nonce: bigint; attempt: SignedAttempt }>>();
  /** Sends that complete together are marked in one statement. */
  private readonly broadcasts: GroupCommit<{ transactionId: string; hash: string }, void>;

  constructor(options: RelayerOptions) {
    this.account = privateKeyToAccount(options.privateKey);
    this.address = this.account.address;
    this.db = options.db;
    this.clients = options.clients ?? new EvmClients();
    for (const network of options.networks)
      if (network.namespace === 'eip155') this.networks.set(network.caip2, network);
    this.stuckAfterMs = options.stuckAfterMs;
    this.onRecorded = options.onRecorded;
    this.log = options.log ?? silentLogger;
    this.broadcasts = new GroupCommit<{ transactionId: string; hash: string }, void>(async (sent) => {
      await markBroadcast(this.db, sent);
      return sent.map(() => undefined);
    });
    const onFinal = options.onFinal;
    this.onFinal = async (trx, transaction) => {
      const native = nativeCoinOf(this.networks.get(transaction.chain));
      // One that never landed (its nonce taken by another) cost nothing: its reservation goes back to the operator.
      if (native) await postNetworkFee(trx, `network_fee:${transaction.id}`, native, BigInt(transaction.fee_paid ?? 0));
      await onFinal?.(trx, {
        chain: transaction.chain,
        purpose: transaction.purpose,
        reference: transaction.payment_id,
        status: transaction.status === 'confirmed' ? 'confirmed' : 'failed',
        hash: transaction.mined_hash,
        nonce: transaction.nonce,
        reason: transaction.failure_reason,
      });
    };
  }

  /**
   * Records and sends a transaction. Once recorded it is never lost: a failed send is sent again by the network's
   * follower.
   */
  async submit(request: RelayRequest): Promise<{ id: string; hash: Hex }> {
    const recorded = await this.record(request);
    const client = this.clients.for(this.network(request.chain));
    await this.send(client, recorded.id, { hash: recorded.hash, raw_transaction: recorded.rawTransaction });
    return { id: recorded.id, hash: recorded.hash };
  }

  /**
   * Estimates gas (which fails, recording nothing, when the call would revert), takes the next nonce, signs and
   * stores the transaction. Nothing is sent.
   */
  async record(request: RelayRequest): Promise<RecordedTransaction> {
    return this.recordPrepared(await this.prepare(request));
  }

  /**
   * What `record` asks the chain: the gas (which fails when the call would revert), the fees and the collector's
   * nonce, and the sender's nonce counter, made once per network. Nothing is locked or stored meanwhile, so a caller
   * can do this before it takes a lock of its own.
   */
  async prepare(request: RelayRequest): Promise<PreparedTransaction> {
    const network = this.network(request.chain);
    const client = this.clients.for(network);
    const data = request.data ?? '0x';
    const value = request.value ?? 0n;
    const [gasEstimate, fees, pendingCount, counterExists] = await Promise.all([
      request.gas ?? client.estimateGas({ account: this.address, to: request.to, data, value }),
      this.clients.currentFees(network),
      client.getTransactionCount({ address: this.address, blockTag: 'pending' }),
      this.countedNetworks.has(network.caip2) || hasNonceCounter(this.db, network.caip2, this.address),
    ]);
    const chainNonce = BigInt(pendingCount);
    if (!counterExists) await ensureNonceCounter(this.db, network.caip2, this.address, chainNonce);
    // A counter row, once there, is never removed.
    this.countedNetworks.add(network.caip2);
    return { ...request, data, value, gas: withGasHeadroom(gasEstimate), fees, chainNonce };
  }

  /**
   * Whether the operator's funding of the network's native coin covers a transaction of `gas` at the network's
   * current fees, as the relayer would sign it: refused with `NetworkFeeShortfallError`, for a check before a
   * transaction is asked for (a buyer's confirm). Journaling it reserves the fee and may still be refused.
   */
  async requireNetworkFeeFunded(chain: string, gas: bigint): Promise<void> {
    const network = this.network(chain);
    const native = nativeCoinOf(network);
    if (!native) return;
    const { maxFeePerGas } = await this.clients.currentFees(network);
    await requireNetworkFeeFunded(this.db, native, withGasHeadroom(gas) * maxFeePerGas);
  }

  /**
   * Takes the next nonce, signs and stores a prepared transaction; no RPC call. Nothing is sent. Refused with
   * `NetworkFeeShortfallError`, nothing stored, when the operator's funding of the native coin does not cover the
   * most it can cost (gas limit × max fee per gas), and with `CollectorJournalBehindError` (logged once per gap)
   * when the collector's nonce on chain was ahead of the journal's.
   */
  async recordPrepared(prepared: PreparedTransaction): Promise<RecordedTransaction> {
    const network = this.network(prepared.chain);
    const transaction = {
      id: `etx_${nextUlid()}`,
      chain: network.caip2,
      from: this.address,
      to: prepared.to,
      data: prepared.data,
      value: prepared.value,
      gas: prepared.gas,
      purpose: prepared.purpose,
      paymentId: prepared.paymentId ?? null,
    };
    const { nonce, attempt } = await this.nonceQueue(network.caip2)
      .add({
        transaction,
        sign: (nonce) =>
          this.sign(
            network,
            { to: prepared.to, data: prepared.data, value: prepared.value, gas: prepared.gas, nonce },
            prepared.fees,
          ),
        chainNonce: prepared.chainNonce,
      })
      .catch((error: unknown) => {
        if (error instanceof CollectorJournalBehindError) this.reportJournalGap(error);
        throw error;
      });
    this.onRecorded?.(network.caip2);
    return { id: transaction.id, hash: attempt.hash as Hex, nonce, rawTransaction: attempt.rawTransaction as Hex };
  }

  /**
   * How many transactions the collector has sent on the network (pending ones counted) beyond those its journal
   * holds: 0 unless the database is older than the chain or the key was used elsewhere, when the relayer refuses to
   * journal more there. The chain is read before the journal, so a transaction journaled meanwhile is never counted.
   */
  async unjournaledTransactions(chain: string): Promise<bigint> {
    const client = this.clients.for(this.network(chain));
    const onChain = BigInt(await client.getTransactionCount({ address: this.address, blockTag: 'pending' }));
    const journal = await nextJournalNonce(this.db, chain, this.address);
    // No counter yet: the first transaction there starts it at the chain's nonce.
    return journal !== undefined && onChain > journal ? onChain - journal : 0n;
  }

  /**
   * The operator's acceptance of the collector's transactions on the network that the journal does not hold: the
   * journal's counter moves up to the collector's nonce on chain, so the relayer journals and sends there again.
   * Whatever the database still has open is then sent, so first reconcile what those transactions paid. Returns the
   * journal's next nonce before and the chain's (equal or lower when nothing was missing).
   */
  async acceptUnjournaled(chain: string): Promise<{ journalNonce: bigint | undefined; chainNonce: bigint }> {
    const client = this.clients.for(this.network(chain));
    const chainNonce = BigInt(await client.getTransactionCount({ address: this.address, blockTag: 'pending' }));
    const journalNonce = await raiseNonceCounter(this.db, chain, this.address, chainNonce);
    if (journalNonce !== undefined && chainNonce > journalNonce) this.reportedJournalGaps.delete(chain);
    return { journalNonce, chainNonce };
  }

  /** Sends the stored bytes of every version of the transaction not yet handed to the node. */
  async broadcast(id: string): Promise<Hex[]> {
    const transaction = await this.stored(id);
    if (isFinal(transaction)) return [];
    const client = this.clients.for(this.network(transaction.chain));
    const sent: Hex[] = [];
    for (const attempt of await attemptsOf(this.db, id)) {
      if (attempt.status === 'recorded' && (await this.send(client, transaction.id, attempt)))
        sent.push(attempt.hash as Hex);
    }
    return sent;
  }

  /**
   * Checks one open transaction on its own (its receipts and the sender's nonce), for a follower that has not seen
   * the blocks it may be in: sends what the node does not have, replaces it when stuck, records its receipt, a
   * revert, a reorg or its nonce taken by another transaction.
   */
  async check(transaction: StoredTransaction): Promise<CheckReport> {
    const report = emptyReport();
    await this.track(this.network(transaction.chain), transaction, report);
    return report;
  }

  /** Records the receipt a follower found in a block it read; final at once when that block is already deep enough. */
  async recordInclusion(
    transaction: StoredTransaction,
    receipt: TransactionReceipt,
    latestBlock: bigint,
  ): Promise<void> {
    await this.recordReceipt(this.network(transaction.chain), transaction, receipt, latestBlock, emptyReport());
  }

  /**
   * The transaction's block reached the network's depth on the canonical chain: it is final. A receipt recorded
   * before the ledger (migration 0034) stored no fee: the receipt is read again first, outside any database
   * transaction, so the fee is stored and entered with the final state; while it cannot be read, the transaction
   * stays open and its follower comes back to it.
   */
  async finishIncluded(transaction: StoredTransaction): Promise<void> {
    const { receipt_block_hash: blockHash, mined_hash: minedHash } = transaction;
    if (blockHash === null) throw new Error(`transaction ${transaction.id} is not mined`);
    let feePaid: bigint | undefined;
    if (transaction.fee_paid === null) {
      if (minedHash === null) throw new Error(`transaction ${transaction.id} has no mined hash`);
      const client = this.clients.for(this.network(transaction.chain));
      const receipt = await client.getTransactionReceipt({ hash: minedHash as Hex });
      if (receipt.blockHash !== blockHash)
        throw new Error(`the node's receipt of ${minedHash} is of block ${receipt.blockHash}, not ${blockHash}`);
      feePaid = networkFeeOf(receipt);
    }
    await markIncludedFinal(this.db, transaction.id, blockHash, this.onFinal, feePaid);
  }

  /** The transaction's block left the canonical chain: it is pending again, and the node is given its bytes again. */
  async reorgedOut(transaction: StoredTransaction): Promise<void> {
    await markReorged(this.db, transaction.id);
    const client = this.clients.for(this.network(transaction.chain));
    await this.pushPending(client, transaction, await attemptsOf(this.db, transaction.id), emptyReport());
  }

  private reportJournalGap(gap: CollectorJournalBehindError): void {
    if (this.reportedJournalGaps.get(gap.chain) === gap.evidence) return;
    this.reportedJournalGaps.set(gap.chain, gap.evidence);
    this.log.error({ network: gap.chain, missing: gap.missing.toString() }, gap.message);
  }

  private nonceQueue(chain: string): GroupCommit<NonceClaim, { nonce: bigint; attempt: SignedAttempt }> {
    let queue = this.nonceQueues.get(chain);
    if (!queue) {
      queue = new GroupCommit((claims) => recordWithNextNonces(this.db, claims, this.feeReservations(chain)));
      this.nonceQueues.set(chain, queue);
    }
    return queue;
  }

  /**
   * Reserves each transaction's most network fee (its gas limit × max fee per gas) from the operator's funding when
   * it is journaled, under the operator account's lock and beside the nonce counter's: transactions journaled at once
   * in any process each see what the ones before reserved, so two cannot pass on one balance. A fee-bumped
   * replacement reserves nothing more (the transaction holds a nonce every later one waits on, so it is never held
   * back): what it costs beyond the reservation is taken from the operator when it is final.
   */
  private feeReservations(chain: string): FeeReservations {
    const native = nativeCoinOf(this.networks.get(chain));
    return async (trx) => {
      if (!native) return async () => {};
      let held = await lockedOperatorFunding(trx, native);
      return async (transaction, attempt) => {
        held = await reserveNetworkFee(trx, `network_fee:${transaction.id}`, {
          nativeAsset: native,
          maxFee: transaction.gas * attempt.maxFeePerGas,
          held,
        });
      };
    };
  }

  private network(chain: string): NetworkInfo {
    const network = this.networks.get(chain);
    if (!network) throw new Error(`the relayer does not send on ${chain}`);
    return network;
  }

  private async stored(id: string): Promise<StoredTransaction> {
    const transaction = await findTransaction(this.db, id);
    if (!transaction) throw new Error(`no relayed transaction ${id}`);
    return transaction;
  }

  private async sign(
    network: NetworkInfo,
    call: { to: Address; data: Hex; value: bigint; gas: bigint; nonce: bigint },
    fees: Eip1559Fees,
  ): Promise<SignedAttempt> {
    const rawTransaction = await this.account.signTransaction({
      chainId: evmChainId(network),
      type: 'eip1559',
      nonce: Number(call.nonce),
      to: call.to,
      data: call.data,
      value: call.value,
      gas: call.gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    return { hash: keccak256(rawTransaction), rawTransaction, ...fees };
  }

  /** Hands stored bytes to the node. A refusal because the node already has them still counts as sent. */
  private async send(
    client: PublicClient,
    transactionId: string,
    attempt: Pick<StoredAttempt, 'hash' | 'raw_transaction'>,
  ): Promise<boolean> {
    try {
      await client.sendRawTransaction({ serializedTransaction: attempt.raw_transaction as Hex });
    } catch (error) {
      if (!(await nodeKnows(client, attempt.hash as Hex))) {
        this.log.warn(`sending ${attempt.hash} (${transactionId}) failed: ${(error as Error).message.split('\n')[0]}`);
        return false;
      }
    }
    await this.broadcasts.add({ transactionId, hash: attempt.hash });
    return true;
  }

  private async track(network: NetworkInfo, transaction: StoredTransaction, report: CheckReport): Promise<void> {
    const client = this.clients.for(network);
    const attempts = await attemptsOf(this.db, transaction.id);
    const [receipts, latestBlock, usedNonces] = await Promise.all([
      Promise.all(attempts.map((attempt) => receiptOrNull(client, attempt.hash as Hex))),
      client.getBlockNumber({ cacheTime: 0 }),
      client.getTransactionCount({ address: this.address, blockTag: 'latest' }),
    ]);
    const receipt = receipts.find((found) => found !== null);
    if (receipt) return this.recordReceipt(network, transaction, receipt, latestBlock, report);
    if (transaction.receipt_block_number !== null) {
      await markReorged(this.db, transaction.id);
      report.reorged.push(transaction.id);
      // The node may have dropped it with the block: make sure it is pending again.
      return this.pushPending(client, transaction, await attemptsOf(this.db, transaction.id), report);
    }
    if (BigInt(usedNonces) > BigInt(transaction.nonce)) {
      // The nonce is spent; look once more in case the block landed between the reads above.
      const again = await Promise.all(attempts.map((attempt) => receiptOrNull(client, attempt.hash as Hex)));
      const late = again.find((found) => found !== null);
      if (late)
        return this.recordReceipt(network, transaction, late, await client.getBlockNumber({ cacheTime: 0 }), report);
      // Final only once the nonce is spent below the confirmation depth: a lagging node behind a load balancer, or a
      // shallow reorg, can hide the receipt of our own transaction for a while.
      const depthBlock = latestBlock - BigInt(Math.max(network.confirmations, 1));
      const spentAtDepth =
        depthBlock >= 0n ? await client.getTransactionCount({ address: this.address, blockNumber: depthBlock }) : 0;
      if (BigInt(spentAtDepth) <= BigInt(transaction.nonce)) return;
      await markFailed(
        this.db,
        transaction.id,
        `nonce ${transaction.nonce} was used by a transaction the relayer did not sign`,
        this.onFinal,
      );
      report.failed.push(transaction.id);
      return;
    }
    await this.pushPending(client, transaction, attempts, report);
  }

  private async recordReceipt(
    network: NetworkInfo,
    transaction: StoredTransaction,
    receipt: TransactionReceipt,
    latestBlock: bigint,
    report: CheckReport,
  ): Promise<void> {
    if (transaction.receipt_block_hash !== null && transaction.receipt_block_hash !== receipt.blockHash)
      report.reorged.push(transaction.id);
    const deepEnough = latestBlock - receipt.blockNumber + 1n >= BigInt(Math.max(network.confirmations, 1));
    const reverted = receipt.status !== 'success';
    const status = !deepEnough ? 'broadcast' : reverted ? 'failed' : 'confirmed';
    await markMined(
      this.db,
      transaction.id,
      {
        hash: receipt.transactionHash,
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
        status,
        failureReason: reverted ? 'reverted' : null,
        feePaid: networkFeeOf(receipt),
      },
      this.onFinal,
    );
    if (status !== 'broadcast') report[status].push(transaction.id);
  }

  /** A transaction with no receipt: make sure the node has it, and replace it when it has waited too long. */
  private async pushPending(
    client: PublicClient,
    transaction: StoredTransaction,
    attempts: StoredAttempt[],
    report: CheckReport,
  ): Promise<void> {
    for (const attempt of attempts) {
      if (attempt.status !== 'recorded') continue;
      // Sent just before a crash that kept it from being marked: the node has it, so it is not sent again.
      if (await nodeKnows(client, attempt.hash as Hex))
        await this.broadcasts.add({ transactionId: transaction.id, hash: attempt.hash });
      else if (await this.send(client, transaction.id, attempt)) report.sent.push(attempt.hash as Hex);
    }
    const newest = attempts.at(-1);
    if (!newest || newest.status === 'recorded') return;
    if (!(await nodeKnows(client, newest.hash as Hex))) {
      // Dropped from the node's pool: the same bytes are still valid and cannot land twice.
      if (await this.send(client, transaction.id, newest)) report.sent.push(newest.hash as Hex);
    }
    const network = this.network(transaction.chain);
    const stuckAfterMs = this.stuckAfterMs ?? Math.max(30 * network.blockTimeMs, 30_000);
    if (newest.broadcast_at && Date.now() - newest.broadcast_at.getTime() >= stuckAfterMs) {
      await this.replace(network, client, transaction, newest, report);
    }
  }

  private async replace(
    network: NetworkInfo,
    client: PublicClient,
    transaction: StoredTransaction,
    stuck: StoredAttempt,
    report: CheckReport,
  ) {
    const fees = replacementFees(storedFees(stuck), await client.estimateFeesPerGas());
    const call = {
      to: transaction.to_address as Address,
      data: transaction.data as Hex,
      value: BigInt(transaction.value),
      gas: BigInt(transaction.gas),
      nonce: BigInt(transaction.nonce),
    };
    const replacement = await this.sign(network, call, fees);
    if (!(await recordReplacement(this.db, transaction.id, stuck.hash, replacement))) return;
    report.replaced.push({ id: transaction.id, hash: replacement.hash as Hex });
    const [stored] = (await attemptsOf(this.db, transaction.id)).filter((attempt) => attempt.hash === replacement.hash);
    if (stored && (await this.send(client, transaction.id, stored))) report.sent.push(replacement.hash as Hex);
  }
}

function emptyReport(): CheckReport {
  return { sent: [], replaced: [], confirmed: [], failed: [], reorged: [] };
}
