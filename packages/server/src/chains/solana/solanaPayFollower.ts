import { type Address, address, signature as toSignature } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { sql, type Transaction } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { SolanaRpc } from './rpc.ts';
import { withSolanaPayTables } from './solanaPayTables.ts';
import {
  accountKeysOf,
  type FetchedSolanaTransaction,
  type SolanaPayTransferCheck,
  validateSolanaPayTransfer,
} from './validateSolanaPayTransfer.ts';
import { postNetworkFee } from '../../ledger/ledger.ts';
import { accountSignatures, serviceSignatures } from './accountSignatures.ts';
import { judgedUnsolicited } from './collectorInflows.ts';

/** A transaction that carries an open request's reference, checked against that request. */
export interface FoundSolanaPayTransfer extends SolanaPayTransferCheck {
  network: string;
  signature: string;
  slot: bigint;
  reference: string;
  paymentId: string;
  /** CAIP-19 id of the token the request asked for. */
  asset: string;
  /** What the request asked for, in minor units. */
  requestedAmount: bigint;
  /**
   * CAIP-19 id of the listed token that reached one of the collector's token accounts (the requested one, or another
   * listed token sent by mistake); null when the transfer credited another account, or a token the network does not
   * list.
   */
  receivedAsset: string | null;
  /** When its block was made, as the node says (null where it does not know). */
  blockTime: Date | null;
  /** The operator's address screening blocks its sender: what it brought is held, never credited to the payment. */
  senderBlocked?: boolean;
}

/**
 * What a found transfer means for its payment, in the transaction that records it; every write is conditional on
 * the state it reads, so two processes finding the same transfer record it once.
 */
export type SolanaPayTransferHandler = (trx: Transaction<Database>, transfer: FoundSolanaPayTransfer) => Promise<void>;

export interface SolanaPayFollowerOptions {
  db: Db;
  rpc: SolanaRpc;
  network: string;
  /** The owner of the token accounts that Solana Pay requests credit. */
  collector: string;
  commitment: 'confirmed' | 'finalized';
  /** The SPL tokens the network lists: transfers to the collector's account of each are read. */
  tokens: readonly { mint: string; asset: string }[];
  clock: { now(): Date };
  /** The network's block height at `confirmed`, shared with the transaction sender (a read of it at most a slot old). */
  blockHeight: () => Promise<bigint>;
  onTransfer: SolanaPayTransferHandler;
  /**
   * Whether the operator's address screening blocks a transfer's sender (CAIP-10), asked before its transaction
   * opens; a refusal to answer ends the pass before the cursor moves, so the transfer is read again.
   */
  screenSender?: (sender: string, paymentId: string) => Promise<boolean>;
}

/** Expired co-signed transactions whose fee a pass enters: each costs one `getTransaction`. */
const EXPIRED_COSIGNED_PER_PASS = 20;

/** The signatures read of an account the first time: where its follower starts. */
const PAGE = 1000;

/**
 * Finds the transfers that pay Solana Pay requests. While any request of an unpaid payment is open, each pass reads
 * the new signatures of the collector's token account of each listed mint (one `getSignaturesForAddress` per mint,
 * whatever the number of open payments: a buyer may send another listed token than the one asked, and it reaches the
 * collector all the same) and fetches each new, successful transaction it did not send itself once
 * (`getTransaction`); a transaction whose keys hold a request's reference is checked and handed to `onTransfer`.
 * Reading the references themselves would cost one call per open payment per slot instead. While an unpaid payment
 * with a request is past its expiry, a pass that reads every account to the end records the time of the slot it read
 * up to (`solana_pay_read_through`): the expiry sweep waits for it.
 */
export class SolanaPayFollower {
  private readonly db;

  constructor(private readonly options: SolanaPayFollowerOptions) {
    this.db = withSolanaPayTables(options.db);
  }

  async follow(): Promise<{ busy: boolean }> {
    const busy = await this.followRequests();
    // After the reads: a node failing this one holds back no payment.
    await this.enterExpiredCosignedFees();
    return { busy };
  }

  /** Reads the transfers that may pay open requests; whether any payment with a request is open. */
  private async followRequests(): Promise<boolean> {
    const { network, tokens } = this.options;
    const requested = await this.db
      .selectFrom('solana_pay_requests as request')
      .innerJoin('payments', 'payments.id', 'request.payment_id')
      .select('request.mint')
      .distinct()
      .where('request.network', '=', network)
      .where('payments.status', '=', 'requires_action')
      .execute();
    if (!requested.length) return false;
    // Read before the signatures: every transaction up to that slot is listed by the reads that follow.
    const readingUpTo = (await this.expiredPaymentWaits()) ? await this.timeAtCommitment() : undefined;
    let readToTheEnd = true;
    for (const mint of new Set([...requested.map((row) => row.mint), ...tokens.map((token) => token.mint)])) {
      if (!(await this.followMint(mint))) readToTheEnd = false;
    }
    if (readingUpTo && readToTheEnd) await this.recordReadThrough(readingUpTo);
    return true;
  }

  /** Whether an unpaid payment with a request on the network is past its expiry, so the expiry sweep waits for it. */
  private async expiredPaymentWaits(): Promise<boolean> {
    const waiting = await this.db
      .selectFrom('solana_pay_requests as request')
      .innerJoin('payments', 'payments.id', 'request.payment_id')
      .select('request.payment_id')
      .where('request.network', '=', this.options.network)
      .where('payments.status', '=', 'requires_action')
      .where('payments.expires_at', '<=', this.options.clock.now())
      .limit(1)
      .executeTakeFirst();
    return waiting !== undefined;
  }

  /** When the newest slot at the follower's commitment was made. */
  private async timeAtCommitment(): Promise<Date> {
    const { rpc, commitment } = this.options;
    const slot = await rpc.getSlot({ commitment }).send();
    return new Date(Number(await rpc.getBlockTime(slot).send()) * 1000);
  }

  /** Every transaction made before `time` is read; never moved back by a pass that started earlier. */
  private async recordReadThrough(time: Date): Promise<void> {
    await this.db
      .insertInto('solana_pay_read_through')
      .values({ network: this.options.network, read_through: time })
      .onConflict((conflict) =>
        conflict.column('network').doUpdateSet({
          read_through: sql<Date>`greatest(solana_pay_read_through.read_through, excluded.read_through)`,
          updated_at: sql<Date>`now()`,
        }),
      )
      .execute();
  }

  /** Reads what reached the collector's account of `mint`; false when it stopped at a transaction not served yet. */
  private async followMint(mint: string): Promise<boolean> {
    const { rpc, network, commitment } = this.options;
    const account = await this.collectorAccount(mint);
    const cursor = await this.db
      .selectFrom('solana_pay_cursors')
      .select('last_signature')
      .where('network', '=', network)
      .where('account', '=', account)
      .executeTakeFirst();
    // Newest first, back to the last signature read (or, the first time, one page).
    const found = await accountSignatures(
      rpc,
      account,
      cursor ? { commitment, until: cursor.last_signature } : { commitment, newest: PAGE },
    );
    if (!found.length) return true;
    const known = await serviceSignatures(
      this.options.db,
      found.map((entry) => entry.signature),
    );
    let newestRead: string | undefined = found[0]?.signature;
    let readToTheEnd = true;
    // Oldest first, so the cursor can stop at the first one not readable yet. A failed one pays nothing, but its fee
    // is the collector's when the collector was its fee payer (a transaction request's).
    for (const { signature, err } of found.toReversed()) {
      if (known.has(signature)) continue;
      const transaction = await rpc
        .getTransaction(toSignature(signature), { encoding: 'json', maxSupportedTransactionVersion: 0, commitment })
        .send();
      if (!transaction) {
        // Listed but not served at this commitment yet: read again from here next pass.
        const index = found.findIndex((entry) => entry.signature === signature);
        newestRead = found[index + 1]?.signature;
        readToTheEnd = false;
        break;
      }
      const fetched = transaction as unknown as FetchedSolanaTransaction;
      await this.recordCollectorFee(signature, fetched);
      const blockTime = transaction.blockTime === null ? null : new Date(Number(transaction.blockTime) * 1000);
      if (err === null) await this.match(signature, transaction.slot, blockTime, fetched);
    }
    if (newestRead) await this.advance(account, cursor?.last_signature, newestRead);
    return readToTheEnd;
  }

  /**
   * A transaction the service did not send whose fee the collector paid (a Solana Pay transaction request it built
   * and the buyer sent), found landed, or a co-signed one whose fee is still reserved, gone past its last valid block
   * (`transaction` absent when it never landed): what it took from the collector is a network fee in the ledger,
   * once, settled against what was reserved for it.
   */
  private async recordCollectorFee(signature: string, transaction: FetchedSolanaTransaction | undefined) {
    const index = transaction ? accountKeysOf(transaction).indexOf(this.options.collector) : -1;
    const before = transaction?.meta?.preBalances?.[index];
    const after = transaction?.meta?.postBalances?.[index];
    const spent = index >= 0 && before !== undefined && after !== undefined ? BigInt(before) - BigInt(after) : 0n;
    const fee = spent > 0n ? spent : 0n;
    // A landed transaction the collector paid nothing for holds no fee, reserved or not.
    if (transaction && fee === 0n) return;
    await this.options.db.transaction().execute(async (trx) => {
      const reserved = await withSolanaPayTables(trx)
        .updateTable('solana_pay_cosigned_transactions')
        .set({ fee_open: false })
        .where('signature', '=', signature)
        .where('fee_open', '=', true)
        .returning('signature')
        .executeTakeFirst();
      if (fee > 0n || reserved)
        await postNetworkFee(trx, `network_fee:${signature}`, `${this.options.network}/slip44:501`, fee);
    });
  }

  /**
   * Co-signed transactions whose fee is still reserved and whose blockhash has expired at `confirmed` can no longer
   * land: each is looked up once at that commitment, and what it cost (nothing, unless it landed unread) is entered,
   * so the rest of the reservation goes back to the operator. The oldest few a pass; the block height read is the
   * one the transaction sender shares, so a pass with reservations open makes no call of its own until one expired.
   */
  private async enterExpiredCosignedFees(): Promise<void> {
    const { rpc, network, blockHeight: sharedBlockHeight } = this.options;
    const commitment = 'confirmed';
    const open = await this.db
      .selectFrom('solana_pay_cosigned_transactions')
      .select(['signature', 'last_valid_block_height'])
      .where('network', '=', network)
      .where('fee_open', '=', true)
      .orderBy('last_valid_block_height')
      .limit(EXPIRED_COSIGNED_PER_PASS)
      .execute();
    if (!open.length) return;
    const blockHeight = await sharedBlockHeight();
    for (const { signature, last_valid_block_height } of open) {
      if (BigInt(last_valid_block_height) >= blockHeight) break;
      const transaction = await rpc
        .getTransaction(toSignature(signature), { encoding: 'json', maxSupportedTransactionVersion: 0, commitment })
        .send();
      await this.recordCollectorFee(signature, (transaction ?? undefined) as FetchedSolanaTransaction | undefined);
    }
  }

  private async match(
    signature: string,
    slot: bigint,
    blockTime: Date | null,
    transaction: FetchedSolanaTransaction,
  ): Promise<void> {
    const { network } = this.options;
    const keys = accountKeysOf(transaction);
    const requests = await this.db
      .selectFrom('solana_pay_requests')
      .selectAll()
      .where('network', '=', network)
      .where('reference', 'in', keys)
      .execute();
    for (const request of requests) {
      const check = validateSolanaPayTransfer(transaction, {
        reference: request.reference,
        mint: request.mint,
        tokenAccount: await this.collectorAccount(request.mint),
        amount: BigInt(request.amount),
      });
      if (!check) return;
      const received = this.options.tokens.find((token) => token.mint === check.mint);
      const reachedCollector =
        received !== undefined && check.destination === (await this.collectorAccount(received.mint));
      const senderBlocked =
        check.buyer !== null && (await this.options.screenSender?.(`${network}:${check.buyer}`, request.payment_id));
      await this.options.db.transaction().execute(async (trx) => {
        if (await judgedUnsolicited(trx, network, signature)) return;
        await this.options.onTransfer(trx, {
          ...check,
          network,
          signature,
          slot,
          reference: request.reference,
          paymentId: request.payment_id,
          asset: request.asset,
          requestedAmount: BigInt(request.amount),
          receivedAsset: reachedCollector ? received.asset : null,
          blockTime,
          ...(senderBlocked ? { senderBlocked } : {}),
        });
      });
      // One transaction pays one payment: the first reference it carries decides.
      return;
    }
  }

  /** The collector's associated token account of `mint`. */
  private async collectorAccount(mint: string): Promise<Address> {
    const [account] = await findAssociatedTokenPda({
      owner: address(this.options.collector),
      mint: address(mint),
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    return account;
  }

  /** Moves the cursor on, only from where this pass read it: a pass of another process that moved it first wins. */
  private async advance(account: string, from: string | undefined, to: string): Promise<void> {
    const { network } = this.options;
    if (from === to) return;
    if (!from) {
      await this.db
        .insertInto('solana_pay_cursors')
        .values({ network, account, last_signature: to })
        .onConflict((conflict) => conflict.columns(['network', 'account']).doNothing())
        .execute();
      return;
    }
    await this.db
      .updateTable('solana_pay_cursors')
      .set({ last_signature: to, updated_at: new Date() })
      .where('network', '=', network)
      .where('account', '=', account)
      .where('last_signature', '=', from)
      .execute();
  }
}
