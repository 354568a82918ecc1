import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { type ColumnType, type Generated, type Kysely, sql, type Transaction } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Logger } from '../../log.ts';
import type { TokenInfo } from '../registry.ts';
import { buildSplTransfer } from './buildSponsoredTransfer.ts';
import type { SolanaCollector } from './collectorKeyPair.ts';
import { SolanaTransactionConflictError } from './errors.ts';
import type { SolanaRpc } from './rpc.ts';
import type { SolanaTransactionSender } from './transactionSender.ts';

type Numeric = ColumnType<string, string | bigint, string | bigint>;

/** The journal's purpose of the transaction that creates a merchant's x402 token account. */
const X402_PAY_TO_ACCOUNT_PURPOSE = 'x402_pay_to_account';
/** The journal's purpose of a sweep of a merchant's x402 token account into the collector's. */
export const X402_SWEEP_PURPOSE = 'x402_sweep';
/** Tries of one sweep that failed on chain before it is left for the operator. */
const MAX_FAILED_X402_SWEEPS = 3;

/** What an x402 payment's transfer brought to its merchant's token account on Solana (migration 0054). */
export interface SolanaX402DepositsTable {
  network: string;
  /** The payment's transaction; a stray transfer's with the account's index in it after a `/`. */
  signature: string;
  /** None for a stray transfer judged unsolicited (`recordStrayDeposit`). */
  payment_id: string | null;
  merchant_id: string;
  /** The merchant's owner (`SolanaCollector.merchantOwner`), whose associated token account of the mint it reached. */
  owner: string;
  mint: string;
  asset: string;
  amount: Numeric;
  /** The sweep that takes it to the collector; none until one is opened. */
  sweep_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
}

/** One sweep of a merchant's token account: exactly its deposits, at most one open per account. */
export interface SolanaX402SweepsTable {
  /** int8 identity; arrives as a string, and is the sweep's journal reference. */
  id: Generated<string>;
  network: string;
  merchant_id: string;
  owner: string;
  mint: string;
  asset: string;
  amount: Numeric;
  status: Generated<'open' | 'swept' | 'given_up'>;
  /** The transaction that swept it, once confirmed. */
  signature: string | null;
  created_at: Generated<Date>;
  swept_at: Date | null;
}

/** A merchant's x402 token account of one mint, listed as the service makes it exist (migration 0056). */
export interface SolanaX402AccountsTable {
  network: string;
  account: string;
  merchant_id: string;
  owner: string;
  mint: string;
  /** CAIP-19 id of the mint. */
  asset: string;
  created_at: Generated<Date>;
}

export type X402SvmTables = {
  solana_x402_accounts: SolanaX402AccountsTable;
  solana_x402_deposits: SolanaX402DepositsTable;
  solana_x402_sweeps: SolanaX402SweepsTable;
};

export function withX402SvmTables(db: Kysely<Database>): Kysely<Database & X402SvmTables>;
export function withX402SvmTables(db: Transaction<Database>): Transaction<Database & X402SvmTables>;
export function withX402SvmTables(db: Kysely<Database> | Transaction<Database>) {
  return db.withTables<X402SvmTables>();
}

/**
 * A transfer that reached a merchant's x402 token account outside any x402 payment, judged unsolicited: a deposit
 * there with no payment, which the account's next sweep takes into the collector's; the caller enters it in the
 * ledger's `deposit_addresses` in the same transaction. Keyed by its signature and the account's index in the
 * transaction, as one transaction may reach two such accounts. The account is a listed one: the follower reads no
 * other.
 */
export async function recordStrayDeposit(
  trx: Transaction<Database>,
  inflow: { chain: string; tx_hash: string; log_index: number; to_account: string; amount: string },
): Promise<void> {
  const tables = withX402SvmTables(trx);
  const account = await tables
    .selectFrom('solana_x402_accounts')
    .selectAll()
    .where('network', '=', inflow.chain)
    .where('account', '=', inflow.to_account)
    .executeTakeFirstOrThrow();
  await tables
    .insertInto('solana_x402_deposits')
    .values({
      network: inflow.chain,
      signature: `${inflow.tx_hash}/${inflow.log_index}`,
      payment_id: null,
      merchant_id: account.merchant_id,
      owner: account.owner,
      mint: account.mint,
      asset: account.asset,
      amount: inflow.amount,
    })
    .execute();
}

/** The associated token account of `owner` for `mint`: where a merchant's x402 payments in the mint are paid. */
export async function tokenAccountOf(owner: string, mint: string): Promise<string> {
  const [account] = await findAssociatedTokenPda({
    owner: address(owner),
    mint: address(mint),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  return account;
}

export interface X402MerchantAccountsOptions {
  db: Db;
  rpc: SolanaRpc;
  sender: SolanaTransactionSender;
  network: string;
  collector: SolanaCollector;
  log: Logger;
  /** How long `ensure` waits for a token account it asked for to exist. */
  waitMs?: number;
}

/** Between reads of a token account that is being created. */
const EXISTS_POLL_MS = 250;

/**
 * A network's merchant x402 token accounts: each made to exist before a buyer is told to pay it (an x402 SVM
 * transaction carries no instruction to create it), and swept into the collector's.
 */
export class X402MerchantAccounts {
  /** Token accounts seen to exist: an account whose owner is the service's own key is never closed. */
  private readonly existing = new Set<string>();
  /** Token accounts listed in `solana_x402_accounts`. */
  private readonly listed = new Set<string>();
  private readonly waitMs: number;

  constructor(private readonly options: X402MerchantAccountsOptions) {
    this.waitMs = options.waitMs ?? 15_000;
  }

  /**
   * Makes the merchant owner's token account of each mint exist: one missing is created by the collector (fee and
   * rent payer), idempotently and through the journal, and waited for at the `confirmed` commitment for up to
   * `waitMs`. A creation another request journaled first is waited for the same way.
   */
  async ensure(merchantId: string, tokens: readonly Pick<TokenInfo, 'address' | 'caip19'>[]): Promise<void> {
    const { collector, network } = this.options;
    const owner = collector.merchantOwner(merchantId);
    const accounts = await Promise.all(
      tokens.map(async (token) => ({
        mint: token.address,
        asset: token.caip19,
        account: await tokenAccountOf(owner, token.address),
      })),
    );
    await this.register(merchantId, owner, accounts);
    let missing = await this.missing(accounts);
    if (!missing.length) return;
    for (const { mint, account } of missing) {
      try {
        await this.create(owner, mint, account);
      } catch (error) {
        if (!(error instanceof SolanaTransactionConflictError)) throw error;
      }
    }
    const deadline = Date.now() + this.waitMs;
    while (missing.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, EXISTS_POLL_MS));
      missing = await this.missing(missing);
    }
    if (missing.length)
      throw new Error(
        `the x402 token accounts ${missing.map((item) => item.account).join(', ')} on ${network} do not exist yet`,
      );
  }

  /**
   * Lists the accounts in `solana_x402_accounts` before any is created, once per process, so the collector-inflow
   * follower reads each from its first transaction.
   */
  private async register(
    merchantId: string,
    owner: string,
    accounts: readonly { mint: string; asset: string; account: string }[],
  ): Promise<void> {
    const unlisted = accounts.filter((item) => !this.listed.has(item.account));
    if (!unlisted.length) return;
    await withX402SvmTables(this.options.db)
      .insertInto('solana_x402_accounts')
      .values(
        unlisted.map((item) => ({
          network: this.options.network,
          account: item.account,
          merchant_id: merchantId,
          owner,
          mint: item.mint,
          asset: item.asset,
        })),
      )
      .onConflict((conflict) => conflict.columns(['network', 'account']).doNothing())
      .execute();
    for (const item of unlisted) this.listed.add(item.account);
  }

  private async missing<T extends { account: string }>(accounts: readonly T[]): Promise<T[]> {
    const unknown = accounts.filter((item) => !this.existing.has(item.account));
    if (!unknown.length) return [];
    const { value } = await this.options.rpc
      .getMultipleAccounts(
        unknown.map((item) => address(item.account)),
        { encoding: 'base64', commitment: 'confirmed' },
      )
      .send();
    return unknown.filter((item, index) => {
      if (value[index]) this.existing.add(item.account);
      return !value[index];
    });
  }

  private async create(owner: string, mint: string, account: string): Promise<void> {
    const { rpc, sender, network, collector } = this.options;
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayer(address(collector.address), draft),
      (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
      (draft) =>
        appendTransactionMessageInstructions(
          [
            getCreateAssociatedTokenIdempotentInstruction({
              payer: createNoopSigner(address(collector.address)),
              ata: address(account),
              owner: address(owner),
              mint: address(mint),
              tokenProgram: TOKEN_PROGRAM_ADDRESS,
            }),
          ],
          draft,
        ),
    );
    // One live creation per account at a time (the journal's reference), whichever process asks.
    await sender.cosignRecordAndSend({
      purpose: X402_PAY_TO_ACCOUNT_PURPOSE,
      reference: `${network}:${account}`,
      transaction: compileTransaction(message),
      lastValidBlockHeight: latest.lastValidBlockHeight,
      builtJustNow: true,
    });
  }

  /**
   * One pass of the network's sweeper: opens a sweep of each token account holding deposits no sweep took (none while
   * one of the account is open, so a sweep takes what arrived while the last was on its way), then journals and
   * sends each open sweep that has no transaction that can still land: a transfer of exactly its deposits to the
   * collector's token account, signed by the merchant's owner, the collector paying the fee. The journal's
   * reference is the sweep, so it is sent once; one that failed or expired is tried again, up to
   * `MAX_FAILED_X402_SWEEPS` failures.
   */
  async sweep(tokens: readonly TokenInfo[]): Promise<void> {
    const { db, network, log } = this.options;
    const tables = withX402SvmTables(db);
    await sql`
      WITH unswept AS (
        SELECT signature, merchant_id, owner, mint, asset, amount FROM solana_x402_deposits
        WHERE network = ${network} AND sweep_id IS NULL
        FOR UPDATE
      ), opened AS (
        INSERT INTO solana_x402_sweeps (network, merchant_id, owner, mint, asset, amount)
        SELECT ${network}, merchant_id, owner, mint, asset, sum(amount) FROM unswept
        GROUP BY merchant_id, owner, mint, asset
        ON CONFLICT (network, owner, mint) WHERE status = 'open' DO NOTHING
        RETURNING id, owner, mint
      )
      UPDATE solana_x402_deposits AS deposit SET sweep_id = opened.id
      FROM unswept JOIN opened ON opened.owner = unswept.owner AND opened.mint = unswept.mint
      WHERE deposit.network = ${network} AND deposit.signature = unswept.signature
    `.execute(db);
    const due = await tables
      .selectFrom('solana_x402_sweeps as sweep')
      .selectAll('sweep')
      .select(
        sql<string>`(SELECT count(*) FROM solana_transactions WHERE purpose = ${X402_SWEEP_PURPOSE}
          AND reference = sweep.id::text AND status = 'failed')`.as('failed_tries'),
      )
      .where('sweep.network', '=', network)
      .where('sweep.status', '=', 'open')
      .where(
        sql<boolean>`NOT EXISTS (SELECT 1 FROM solana_transactions WHERE purpose = ${X402_SWEEP_PURPOSE}
          AND reference = sweep.id::text AND status IN ('recorded', 'sent', 'confirmed'))`,
      )
      .orderBy('sweep.id')
      .execute();
    for (const sweep of due) {
      if (Number(sweep.failed_tries) >= MAX_FAILED_X402_SWEEPS) {
        await tables.updateTable('solana_x402_sweeps').set({ status: 'given_up' }).where('id', '=', sweep.id).execute();
        log.warn(
          `the sweep ${sweep.id} of ${sweep.owner}'s ${sweep.mint} on ${network} failed ${sweep.failed_tries} times; left for the operator`,
        );
        continue;
      }
      const token = tokens.find((candidate) => candidate.address === sweep.mint);
      if (!token) continue;
      // A node's refusal failed the try in the journal; the other accounts are swept meanwhile.
      await this.sendSweep(sweep, token).catch((error: unknown) => {
        log.warn(`sweeping ${sweep.owner}'s ${sweep.mint} on ${network} failed: ${(error as Error).message}`);
      });
    }
  }

  private async sendSweep(
    sweep: { id: string; merchant_id: string; mint: string; amount: string },
    token: TokenInfo,
  ): Promise<void> {
    const { rpc, sender, collector } = this.options;
    const { transaction, lastValidBlockHeight } = await buildSplTransfer({
      rpc,
      collector: collector.address,
      from: collector.merchantOwner(sweep.merchant_id),
      to: collector.address,
      mint: sweep.mint,
      decimals: token.decimals,
      amount: BigInt(sweep.amount),
      memo: `x402 sweep ${sweep.id}`,
    });
    const signed = await partiallySignTransaction(
      [await collector.merchantOwnerKeyPair(sweep.merchant_id)],
      transaction,
    );
    await sender.cosignRecordAndSend({
      purpose: X402_SWEEP_PURPOSE,
      reference: sweep.id,
      transaction: signed,
      lastValidBlockHeight,
      builtJustNow: true,
    });
  }
}
