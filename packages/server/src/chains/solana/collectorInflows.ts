import { type Address, address, signature as toSignature } from '@solana/kit';
import { accountSignatures, serviceSignatures } from './accountSignatures.ts';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { newId } from '../../ids.ts';
import type { NetworkInfo } from '../registry.ts';
import { withX402SvmTables } from './x402MerchantAccounts.ts';
import type { SolanaRpc } from './rpc.ts';
import { accountKeysOf, type FetchedSolanaTransaction } from './validateSolanaPayTransfer.ts';

/** The read position of an account that had no transaction when the follower first read it. */
const NOTHING_READ = '';

/** The key `collector_inflows` gives SOL reaching the collector's own account (a token's is its account's index). */
export const SOL_INFLOW_INDEX = -1;

interface OwnedTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

/** The parts of a `getTransaction` answer (`json` encoding) that say what moved between whom. */
type InflowTransaction = FetchedSolanaTransaction & {
  slot: bigint;
  meta:
    | (NonNullable<FetchedSolanaTransaction['meta']> & {
        fee?: bigint | number;
        preTokenBalances?: readonly OwnedTokenBalance[] | null;
        postTokenBalances?: readonly OwnedTokenBalance[] | null;
      })
    | null;
};

/** One account of the collector whose signatures the follower reads, and what reaching it means. */
interface FollowedAccount {
  account: Address;
  /** CAIP-19 id of what the account holds. */
  asset: string;
  /** The mint of a token account; absent for the collector's own account (SOL). */
  mint?: string;
  /** A merchant's x402 token account (`solana_x402_accounts`) rather than one of the collector's own. */
  merchantAccount?: boolean;
}

/** Merchants' x402 token accounts whose new signatures one pass reads, those read longest ago first. */
const MERCHANT_ACCOUNTS_PER_PASS = 10;

export interface InflowFound {
  chain: string;
  tx_hash: string;
  log_index: number;
  asset: string;
  sender: string;
  amount: bigint;
  block_number: bigint;
  /** The merchant's x402 token account it reached; null for the collector's own. */
  to_account: string | null;
}

/**
 * What one successful transaction added to the collector's accounts: SOL to its own account (a fee it paid itself
 * added back, so paying for a transaction is no inflow) and each listed token to its token account, each with the
 * sender whose balance went down the most (the fee payer when none did, as for a mint).
 */
export function inflowsOf(
  network: string,
  collector: string,
  followed: readonly FollowedAccount[],
  signature: string,
  transaction: InflowTransaction,
): InflowFound[] {
  const meta = transaction.meta;
  if (!meta || meta.err !== null) return [];
  const keys = accountKeysOf(transaction);
  const feePayer = keys[0] ?? collector;
  const fee = BigInt(meta.fee ?? 0);
  const lamportsChange = (index: number) =>
    BigInt(meta.postBalances?.[index] ?? 0) - BigInt(meta.preBalances?.[index] ?? 0) + (index === 0 ? fee : 0n);
  const found: InflowFound[] = [];
  for (const { account, asset, mint, merchantAccount } of followed) {
    const inflow = (asset: string, logIndex: number, amount: bigint, sender: string) =>
      found.push({
        chain: network,
        tx_hash: signature,
        log_index: logIndex,
        asset,
        sender: `${network}:${sender}`,
        amount,
        block_number: transaction.slot,
        to_account: merchantAccount ? account : null,
      });
    const index = keys.indexOf(account);
    if (index < 0) continue;
    if (mint === undefined) {
      const received = lamportsChange(index);
      if (received <= 0n) continue;
      let sender = feePayer;
      let most = 0n;
      keys.forEach((key, other) => {
        const sent = -lamportsChange(other);
        if (other !== index && sent > most) [sender, most] = [key, sent];
      });
      inflow(asset, SOL_INFLOW_INDEX, received, sender);
      continue;
    }
    const tokenAmount = (balances: readonly OwnedTokenBalance[] | null | undefined, at: number) =>
      BigInt(balances?.find((balance) => balance.accountIndex === at)?.uiTokenAmount.amount ?? 0);
    const received = tokenAmount(meta.postTokenBalances, index) - tokenAmount(meta.preTokenBalances, index);
    if (received <= 0n) continue;
    let sender = feePayer;
    let most = 0n;
    for (const before of meta.preTokenBalances ?? []) {
      if (before.mint !== mint || before.accountIndex === index || !before.owner) continue;
      const sent = BigInt(before.uiTokenAmount.amount) - tokenAmount(meta.postTokenBalances, before.accountIndex);
      if (sent > most) [sender, most] = [before.owner, sent];
    }
    inflow(asset, index, received, sender);
  }
  return found;
}

/**
 * Follows every transfer into the collector of one Solana network (SOL to its own account, and each listed SPL
 * token to its token account) and stores each in `collector_inflows`, once, to be judged against the service's
 * records like the EVM follower's: nothing reaches the collector unrecorded. Each pass reads the signatures of the
 * followed accounts since the newest one read (`solana_inflow_cursors`) and fetches each new successful
 * transaction the service did not send itself, once; its read position starts at the newest signature when the
 * service first follows the account, since what came before is in the ledger already (funding, opening balances).
 */
export class SolanaCollectorInflowFollower {
  private followed: Promise<FollowedAccount[]> | undefined;

  constructor(
    private readonly options: {
      db: Db;
      rpc: SolanaRpc;
      network: NetworkInfo;
      collector: string;
      commitment: 'confirmed' | 'finalized';
    },
  ) {}

  /** Reads what reached each followed account since the last pass; the number of inflows found. */
  async step(): Promise<number> {
    const own = await this.collectorAccounts();
    // A transaction that reached two accounts is read once, for all of them.
    const read = new Set<string>();
    let found = 0;
    for (const account of [...own, ...(await this.merchantAccountsDue())])
      found += await this.followAccount(account, own, read);
    return found;
  }

  /**
   * Merchants' x402 token accounts a pass reads: a few, the one read longest ago (or never) first, so their number
   * does not set the pass's cost; a transfer there waits for its judgement longer than the reading takes anyway.
   */
  private async merchantAccountsDue(): Promise<FollowedAccount[]> {
    const { db, network } = this.options;
    const due = await withX402SvmTables(db)
      .selectFrom('solana_x402_accounts as merchant')
      .leftJoin('solana_inflow_cursors as cursor', (join) =>
        join.onRef('cursor.network', '=', 'merchant.network').onRef('cursor.account', '=', 'merchant.account'),
      )
      .select(['merchant.account', 'merchant.asset', 'merchant.mint'])
      .where('merchant.network', '=', network.caip2)
      .orderBy(sql`cursor.updated_at NULLS FIRST`)
      .limit(MERCHANT_ACCOUNTS_PER_PASS)
      .execute();
    return due.map((row) => ({
      account: address(row.account),
      asset: row.asset,
      mint: row.mint,
      merchantAccount: true,
    }));
  }

  /** The followed accounts: the collector's own, and the merchants' x402 token accounts among `keys`. */
  private async followedAmong(own: readonly FollowedAccount[], keys: readonly string[]): Promise<FollowedAccount[]> {
    if (!keys.length) return [...own];
    const merchants = await withX402SvmTables(this.options.db)
      .selectFrom('solana_x402_accounts')
      .select(['account', 'asset', 'mint'])
      .where('network', '=', this.options.network.caip2)
      .where('account', 'in', keys)
      .execute();
    return [
      ...own,
      ...merchants.map((row) => ({
        account: address(row.account),
        asset: row.asset,
        mint: row.mint,
        merchantAccount: true,
      })),
    ];
  }

  private collectorAccounts(): Promise<FollowedAccount[]> {
    const { network, collector } = this.options;
    this.followed ??= Promise.all(
      network.tokens.flatMap((token) => {
        if (token.method === 'native') return [Promise.resolve({ account: address(collector), asset: token.caip19 })];
        if (token.method !== 'spl') return [];
        return [
          findAssociatedTokenPda({
            owner: address(collector),
            mint: address(token.address),
            tokenProgram: TOKEN_PROGRAM_ADDRESS,
          }).then(([account]) => ({ account, asset: token.caip19, mint: token.address })),
        ];
      }),
    );
    return this.followed;
  }

  private async followAccount(
    { account, merchantAccount }: FollowedAccount,
    own: readonly FollowedAccount[],
    read: Set<string>,
  ): Promise<number> {
    const { db, rpc, network, collector, commitment } = this.options;
    const cursor = await db
      .selectFrom('solana_inflow_cursors')
      .select('last_signature')
      .where('network', '=', network.caip2)
      .where('account', '=', account)
      .executeTakeFirst();
    // Newest first, back to the last signature read. The first time, only the newest of the collector's own account,
    // where the reading starts; a merchant's account, listed before it was made, is read from its first.
    const listed = await accountSignatures(
      rpc,
      account,
      cursor || merchantAccount
        ? { commitment, until: cursor?.last_signature || undefined }
        : { commitment, newest: 1 },
    );
    const newest = listed[0]?.signature;
    if (!cursor && !merchantAccount) {
      // An account with no transaction yet (a token never received) is read from its first one.
      await this.advance(db, account, undefined, newest ?? NOTHING_READ);
      return 0;
    }
    if (!newest) {
      // A merchant's account is read again after the others once this read is noted.
      if (merchantAccount)
        await this.advance(db, account, cursor?.last_signature, cursor?.last_signature ?? NOTHING_READ);
      return 0;
    }
    const known = await this.knownSignatures(listed.map((entry) => entry.signature));
    let newestRead: string | undefined = newest;
    const fetched: { signature: string; transaction: InflowTransaction }[] = [];
    // Oldest first, so the cursor can stop at the first one not served yet.
    const oldestFirst = listed.toReversed();
    for (const [position, { signature, err }] of oldestFirst.entries()) {
      if (err !== null || known.has(signature) || read.has(signature)) continue;
      const transaction = await rpc
        .getTransaction(toSignature(signature), { encoding: 'json', maxSupportedTransactionVersion: 0, commitment })
        .send();
      if (!transaction) {
        // Listed but not served at this commitment yet: read again from the one before it next pass.
        newestRead = oldestFirst[position - 1]?.signature;
        break;
      }
      read.add(signature);
      fetched.push({ signature, transaction: transaction as unknown as InflowTransaction });
    }
    // One look-up of the merchants' accounts the fetched transactions name, for all of them.
    const followed = await this.followedAmong(
      own,
      fetched.flatMap(({ transaction }) => accountKeysOf(transaction)),
    );
    const found = fetched.flatMap(({ signature, transaction }) =>
      inflowsOf(network.caip2, collector, followed, signature, transaction),
    );
    await db.transaction().execute(async (trx) => {
      if (found.length) {
        await trx
          .insertInto('collector_inflows')
          .values(found.map((inflow) => ({ id: newId('inf'), ...inflow })))
          .onConflict((conflict) => conflict.columns(['chain', 'tx_hash', 'log_index']).doNothing())
          .execute();
      }
      if (newestRead) await this.advance(trx, account, cursor?.last_signature, newestRead);
    });
    return found.length;
  }

  /** Signatures that need no read: sent by the service itself, recorded as Solana Pay transfers, or read already. */
  private async knownSignatures(signatures: string[]): Promise<Set<string>> {
    const [service, stored] = await Promise.all([
      serviceSignatures(this.options.db, signatures),
      this.options.db
        .selectFrom('collector_inflows')
        .select('tx_hash')
        .where('chain', '=', this.options.network.caip2)
        .where('tx_hash', 'in', signatures)
        .execute(),
    ]);
    return new Set([...service, ...stored.map((row) => row.tx_hash)]);
  }

  /** Moves an account's cursor on, only from where this pass read it: another process that moved it first wins. */
  private async advance(db: Kysely<Database>, account: string, from: string | undefined, to: string): Promise<void> {
    const { network } = this.options;
    if (from === undefined) {
      await db
        .insertInto('solana_inflow_cursors')
        .values({ network: network.caip2, account, last_signature: to })
        .onConflict((conflict) => conflict.columns(['network', 'account']).doNothing())
        .execute();
      return;
    }
    await db
      .updateTable('solana_inflow_cursors')
      .set({ last_signature: to, updated_at: new Date() })
      .where('network', '=', network.caip2)
      .where('account', '=', account)
      .where('last_signature', '=', from)
      .execute();
  }
}

/**
 * Whether a transaction's transfer into the collector was judged unsolicited (owed to its sender), taking its rows'
 * locks until the caller's transaction ends: a Solana Pay transfer read after that is no payment's as well, so the
 * value is owed once, whichever record came first.
 */
export async function judgedUnsolicited(trx: Transaction<Database>, network: string, signature: string) {
  const inflows = await trx
    .selectFrom('collector_inflows')
    .select('outcome')
    .where('chain', '=', network)
    .where('tx_hash', '=', signature)
    .forUpdate()
    .execute();
  return inflows.some((inflow) => inflow.outcome === 'unsolicited');
}
