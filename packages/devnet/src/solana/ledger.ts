import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  getBase58Encoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Address,
  type CompiledTransactionMessageWithLifetime,
  type LegacyCompiledTransactionMessage,
  type Transaction,
  type TransactionMessageBytes,
  type V0CompiledTransactionMessage,
} from '@solana/kit';
import { Clock, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import {
  addressAt,
  base58,
  parseMint,
  parseTokenAccount,
  SYSTEM_PROGRAM,
  tokenAmount,
  type LedgerAccount,
} from './accounts.ts';
import { transactionErrorJson, transactionErrorMessage, type TransactionErrorJson } from './errors.ts';

/** A blockhash is usable for this many slots after it was produced, as on mainnet. */
export const MAX_PROCESSING_AGE = 150;
/** Slots after which a transaction counts as finalized (mainnet: about 32). */
export const FINALIZED_DEPTH = 32;
const LAMPORTS_PER_SIGNATURE = 5000n;
const MAX_RECORDS = 50_000;
/** Slots whose start time `blockTime` answers; older ones are "missing in long-term storage", as on a node. */
const SLOT_TIMES_KEPT = 100_000;

export class RpcError extends Error {
  override readonly name = 'RpcError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

interface BlockhashEntry {
  blockhash: string;
  slot: number;
}

export interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: ReturnType<typeof tokenAmount>;
}

interface InnerInstructionsJson {
  index: number;
  instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number }[];
}

/** What the ledger remembers of a landed transaction; bigints are kept as decimal strings for the file. */
export interface TransactionRecord {
  signature: string;
  slot: number;
  blockTime: number;
  wireBase64: string;
  err: TransactionErrorJson | null;
  fee: string;
  preBalances: string[];
  postBalances: string[];
  preTokenBalances: TokenBalanceJson[];
  postTokenBalances: TokenBalanceJson[];
  logMessages: string[];
  innerInstructions: InnerInstructionsJson[];
  computeUnitsConsumed: string;
  loadedAddresses: { writable: string[]; readonly: string[] };
  /** Every account the transaction touched, for getSignaturesForAddress. */
  accountKeys: string[];
}

interface PersistedLedger {
  slot: number;
  blockhashes: BlockhashEntry[];
  records: TransactionRecord[];
}

export interface DecodedTransaction {
  transaction: Transaction;
  message: (LegacyCompiledTransactionMessage | V0CompiledTransactionMessage) & CompiledTransactionMessageWithLifetime;
  signature: string;
  version: 'legacy' | 0;
}

export interface SimulationResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  fee: bigint;
  replacementBlockhash: { blockhash: string; lastValidBlockHeight: number } | null;
}

const SNAPSHOT_FILE = 'solana-svm.bin';
const LEDGER_FILE = 'solana-ledger.json';

export function decodeWireTransaction(wire: Uint8Array): DecodedTransaction {
  let transaction: Transaction;
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>;
  try {
    transaction = getTransactionDecoder().decode(wire);
    message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  } catch (error) {
    throw new RpcError(-32602, `invalid transaction: failed to deserialize transaction: ${(error as Error).message}`);
  }
  if (message.version !== 'legacy' && message.version !== 0) {
    throw new RpcError(-32602, `invalid transaction: unsupported transaction version ${String(message.version)}`);
  }
  const firstSignature = Object.values(transaction.signatures)[0];
  return {
    transaction,
    message,
    signature: firstSignature ? base58(firstSignature) : base58(new Uint8Array(64)),
    version: message.version,
  };
}

/** Fee the runtime charged; the native binding only exposes it in its debug text. */
function chargedFee(meta: TransactionMetadata, signatures: number): bigint {
  const match = /fee: (\d+)/.exec(meta.toString());
  return match?.[1] ? BigInt(match[1]) : LAMPORTS_PER_SIGNATURE * BigInt(signatures);
}

/**
 * LiteSVM plus what a node has around it: a slot clock, a queue of recent blockhashes (LiteSVM alone
 * only accepts its latest one), a store of landed transactions, and snapshots in the data dir.
 */
export class SolanaLedger {
  private readonly records: Map<string, TransactionRecord>;
  /** When each recent slot started (unix seconds), since this process opened the ledger. */
  private readonly slotTimes = new Map<number, number>();
  private dirty = false;

  private constructor(
    private svm: LiteSVM,
    private slot: number,
    private blockhashes: BlockhashEntry[],
    records: TransactionRecord[],
    private readonly dataDir: string,
  ) {
    this.records = new Map(records.map((record) => [record.signature, record]));
  }

  static open(dataDir: string): { ledger: SolanaLedger; restored: boolean } {
    const snapshotPath = join(dataDir, SNAPSHOT_FILE);
    const ledgerPath = join(dataDir, LEDGER_FILE);
    if (existsSync(snapshotPath) && existsSync(ledgerPath)) {
      const persisted = JSON.parse(readFileSync(ledgerPath, 'utf8')) as PersistedLedger;
      const svm = LiteSVM.loadFromFile(snapshotPath).withBlockhashCheck(false).withSigverify(true);
      const ledger = new SolanaLedger(svm, persisted.slot, persisted.blockhashes, persisted.records, dataDir);
      return { ledger, restored: true };
    }
    // Blockhash age is enforced here rather than by LiteSVM, which accepts nothing but its latest hash.
    const svm = new LiteSVM().withBlockhashCheck(false).withSigverify(true);
    const slot = Number(svm.getClock().slot);
    const ledger = new SolanaLedger(svm, slot, [{ blockhash: svm.latestBlockhash(), slot }], [], dataDir);
    ledger.setClock();
    return { ledger, restored: false };
  }

  get currentSlot(): number {
    return this.slot;
  }

  /** Every slot produces a block here, so the block height equals the slot. */
  get blockHeight(): number {
    return this.slot;
  }

  get transactionCount(): number {
    return this.records.size;
  }

  /** When the slot started (unix seconds), or null for a slot not made yet or no longer kept. */
  blockTime(slot: number): number | null {
    return this.slotTimes.get(slot) ?? null;
  }

  /** The newest slot at a commitment: a transaction is confirmed one slot after it landed, finalized 32 after. */
  slotAt(commitment: 'processed' | 'confirmed' | 'finalized'): number {
    const depth = commitment === 'processed' ? 0 : commitment === 'confirmed' ? 1 : FINALIZED_DEPTH;
    return Math.max(this.slot - depth, 0);
  }

  private setClock(): void {
    const now = Math.floor(Date.now() / 1000);
    this.slotTimes.set(this.slot, now);
    if (this.slotTimes.size > SLOT_TIMES_KEPT) this.slotTimes.delete(this.slotTimes.keys().next().value as number);
    const clock = this.svm.getClock();
    this.svm.setClock(
      new Clock(BigInt(this.slot), clock.epochStartTimestamp, clock.epoch, clock.leaderScheduleEpoch, BigInt(now)),
    );
  }

  advanceSlot(): void {
    this.slot += 1;
    this.svm.warpToSlot(BigInt(this.slot));
    this.setClock();
    this.svm.expireBlockhash();
    this.blockhashes.push({ blockhash: this.svm.latestBlockhash(), slot: this.slot });
    while (this.blockhashes.length > MAX_PROCESSING_AGE + 1) this.blockhashes.shift();
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    const latest = this.blockhashes[this.blockhashes.length - 1];
    if (!latest) throw new Error('no blockhash yet');
    return { blockhash: latest.blockhash, lastValidBlockHeight: latest.slot + MAX_PROCESSING_AGE };
  }

  isBlockhashValid(blockhash: string): boolean {
    const entry = this.blockhashes.find((candidate) => candidate.blockhash === blockhash);
    return entry !== undefined && this.slot - entry.slot <= MAX_PROCESSING_AGE;
  }

  account(address: string): LedgerAccount | null {
    const account = this.svm.getAccount(address as Address);
    if (!account.exists) return null;
    return {
      lamports: account.lamports,
      data: new Uint8Array(account.data),
      owner: account.programAddress,
      executable: account.executable,
    };
  }

  programAccounts(program: string): { address: string; account: LedgerAccount }[] {
    return this.svm.getProgramAccounts(program as Address).map((account) => ({
      address: account.address,
      account: {
        lamports: account.lamports,
        data: new Uint8Array(account.data),
        owner: account.programAddress,
        executable: account.executable,
      },
    }));
  }

  /** Sets an account's lamports outright; used only to fund the devnet's own airdrop source. */
  setLamports(address: string, lamports: bigint): void {
    this.svm.setAccount({
      address: address as Address,
      lamports: lamports as never,
      data: new Uint8Array(),
      programAddress: SYSTEM_PROGRAM as Address,
      executable: false,
      space: 0n,
    });
    this.dirty = true;
  }

  minimumBalanceForRentExemption(dataLength: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(dataLength));
  }

  mintDecimals(mint: string): number | null {
    const account = this.account(mint);
    return account ? (parseMint(account)?.decimals ?? null) : null;
  }

  /** A durable-nonce transaction names the nonce value instead of a recent blockhash. */
  private usesValidDurableNonce(decoded: DecodedTransaction): boolean {
    const first = decoded.message.instructions[0];
    const keys = decoded.message.staticAccounts;
    if (!first || keys[first.programAddressIndex] !== SYSTEM_PROGRAM) return false;
    const data = first.data;
    // System instruction 4 is AdvanceNonceAccount; its first account is the nonce account.
    if (!data || data.length < 4 || new DataView(data.buffer, data.byteOffset, 4).getUint32(0, true) !== 4)
      return false;
    const nonceIndex = first.accountIndices?.[0];
    const nonceAddress = nonceIndex === undefined ? undefined : keys[nonceIndex];
    const nonceAccount = nonceAddress ? this.account(nonceAddress) : null;
    if (!nonceAccount || nonceAccount.data.length < 72) return false;
    return addressAt(nonceAccount.data, 40) === decoded.message.lifetimeToken;
  }

  private hasValidLifetime(decoded: DecodedTransaction): boolean {
    return this.isBlockhashValid(decoded.message.lifetimeToken) || this.usesValidDurableNonce(decoded);
  }

  /** Account keys in the order the runtime numbers them: static keys, then lookup-table writable, then readonly. */
  private accountKeys(decoded: DecodedTransaction): {
    all: string[];
    loaded: { writable: string[]; readonly: string[] };
  } {
    const loaded = { writable: [] as string[], readonly: [] as string[] };
    const lookups = decoded.message.version === 0 ? (decoded.message.addressTableLookups ?? []) : [];
    for (const lookup of lookups) {
      const table = this.account(lookup.lookupTableAddress);
      // The lookup-table layout: a 56-byte header, then 32-byte addresses.
      const addressAtIndex = (index: number) => (table ? addressAt(table.data, 56 + index * 32) : '');
      loaded.writable.push(...lookup.writableIndexes.map(addressAtIndex));
      loaded.readonly.push(...lookup.readonlyIndexes.map(addressAtIndex));
    }
    return { all: [...decoded.message.staticAccounts, ...loaded.writable, ...loaded.readonly], loaded };
  }

  private tokenBalances(keys: string[]): TokenBalanceJson[] {
    const balances: TokenBalanceJson[] = [];
    keys.forEach((key, accountIndex) => {
      const account = this.account(key);
      const info = account ? parseTokenAccount(account) : null;
      if (!account || !info) return;
      const decimals = this.mintDecimals(info.mint);
      if (decimals === null) return;
      balances.push({
        accountIndex,
        mint: info.mint,
        owner: info.owner,
        programId: account.owner,
        uiTokenAmount: tokenAmount(info.amount, decimals),
      });
    });
    return balances;
  }

  private lamportBalances(keys: string[]): bigint[] {
    return keys.map((key) => this.account(key)?.lamports ?? 0n);
  }

  private withSigverify<T>(enabled: boolean, run: () => T): T {
    this.svm.withSigverify(enabled);
    try {
      return run();
    } finally {
      this.svm.withSigverify(true);
    }
  }

  private runSimulation(decoded: DecodedTransaction): SimulationResult {
    let outcome: ReturnType<LiteSVM['simulateTransaction']>;
    try {
      outcome = this.svm.simulateTransaction(decoded.transaction);
    } catch {
      return { err: 'SignatureFailure', logs: [], unitsConsumed: 0n, fee: 0n, replacementBlockhash: null };
    }
    const signatures = decoded.message.header.numSignerAccounts;
    if (outcome instanceof FailedTransactionMetadata) {
      const meta = outcome.meta();
      return {
        err: transactionErrorJson(outcome.err()),
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
        fee: chargedFee(meta, signatures),
        replacementBlockhash: null,
      };
    }
    const meta = outcome.meta();
    return {
      err: null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      fee: chargedFee(meta, signatures),
      replacementBlockhash: null,
    };
  }

  simulate(wire: Uint8Array, options: { sigVerify: boolean; replaceRecentBlockhash: boolean }): SimulationResult {
    let decoded = decodeWireTransaction(wire);
    let replacementBlockhash: SimulationResult['replacementBlockhash'] = null;
    if (options.replaceRecentBlockhash) {
      replacementBlockhash = this.latestBlockhash();
      const messageBytes = getCompiledTransactionMessageEncoder().encode({
        ...decoded.message,
        lifetimeToken: replacementBlockhash.blockhash,
      });
      decoded = decodeWireTransaction(
        new Uint8Array(
          getTransactionEncoder().encode({
            ...decoded.transaction,
            messageBytes: messageBytes as unknown as TransactionMessageBytes,
          }),
        ),
      );
    } else if (!this.hasValidLifetime(decoded)) {
      return { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0n, fee: 0n, replacementBlockhash: null };
    }
    const result = this.withSigverify(options.sigVerify, () => this.runSimulation(decoded));
    return { ...result, replacementBlockhash };
  }

  /** The fee a message would cost, or null when its blockhash is no longer valid. */
  feeForMessage(messageBytes: Uint8Array): bigint | null {
    const message = getCompiledTransactionMessageDecoder().decode(messageBytes);
    if (!this.isBlockhashValid(message.lifetimeToken)) return null;
    const signatures = message.header.numSignerAccounts;
    const placeholder = new Uint8Array(
      getTransactionEncoder().encode({
        messageBytes: messageBytes as unknown as TransactionMessageBytes,
        signatures: Object.fromEntries(
          message.staticAccounts.slice(0, signatures).map((key) => [key, new Uint8Array(64)]),
        ) as Transaction['signatures'],
      }),
    );
    const simulated = this.withSigverify(false, () => this.runSimulation(decodeWireTransaction(placeholder)));
    return simulated.fee > 0n ? simulated.fee : LAMPORTS_PER_SIGNATURE * BigInt(signatures);
  }

  /**
   * Processes a transaction the way a node's sendTransaction does: with preflight, any failure is a
   * JSON-RPC error and changes nothing; without, a transaction that reaches execution lands (failed
   * ones pay their fee) and one that cannot (bad blockhash, bad signature) is silently dropped.
   */
  send(wire: Uint8Array, options: { skipPreflight: boolean }): string {
    const decoded = decodeWireTransaction(wire);
    if (this.records.has(decoded.signature)) {
      if (options.skipPreflight) return decoded.signature;
      throw preflightError('AlreadyProcessed', []);
    }
    const signatureCheck = this.runSimulation(decoded);
    if (signatureCheck.err === 'SignatureFailure')
      throw new RpcError(-32003, 'Transaction signature verification failure');
    if (!this.hasValidLifetime(decoded)) {
      if (options.skipPreflight) return decoded.signature;
      throw preflightError('BlockhashNotFound', []);
    }
    if (!options.skipPreflight && signatureCheck.err !== null) {
      throw preflightError(signatureCheck.err, signatureCheck.logs, signatureCheck.unitsConsumed);
    }

    const { all: keys, loaded } = this.accountKeys(decoded);
    const preBalances = this.lamportBalances(keys);
    const preTokenBalances = this.tokenBalances(keys);
    const outcome = this.svm.sendTransaction(decoded.transaction);
    const failed = outcome instanceof FailedTransactionMetadata;
    const meta = failed ? outcome.meta() : outcome;
    const postBalances = this.lamportBalances(keys);
    if (failed && postBalances[0] === preBalances[0]) {
      // Never executed (the fee was not even taken): a node would drop it.
      return decoded.signature;
    }
    const record: TransactionRecord = {
      signature: decoded.signature,
      slot: this.slot,
      blockTime: Math.floor(Date.now() / 1000),
      wireBase64: Buffer.from(wire).toString('base64'),
      err: failed ? transactionErrorJson(outcome.err()) : null,
      fee: chargedFee(meta, decoded.message.header.numSignerAccounts).toString(),
      preBalances: preBalances.map(String),
      postBalances: postBalances.map(String),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(keys),
      logMessages: meta.logs(),
      innerInstructions: meta.innerInstructions().flatMap((inner, index) =>
        inner.length === 0
          ? []
          : [
              {
                index,
                instructions: inner.map((instruction) => {
                  const compiled = instruction.instruction();
                  return {
                    programIdIndex: compiled.programIdIndex(),
                    accounts: [...compiled.accounts()],
                    data: base58(compiled.data()),
                    stackHeight: instruction.stackHeight(),
                  };
                }),
              },
            ],
      ),
      computeUnitsConsumed: meta.computeUnitsConsumed().toString(),
      loadedAddresses: loaded,
      accountKeys: keys,
    };
    this.records.set(record.signature, record);
    if (this.records.size > MAX_RECORDS) {
      const oldest = this.records.keys().next().value;
      if (oldest !== undefined) this.records.delete(oldest);
    }
    this.dirty = true;
    return decoded.signature;
  }

  transaction(signature: string): TransactionRecord | undefined {
    return this.records.get(signature);
  }

  /** Landed transactions that touched an address, newest first. */
  signaturesForAddress(address: string): TransactionRecord[] {
    return [...this.records.values()].filter((record) => record.accountKeys.includes(address)).reverse();
  }

  commitmentOf(record: TransactionRecord): {
    confirmationStatus: 'processed' | 'confirmed' | 'finalized';
    confirmations: number | null;
  } {
    const depth = this.slot - record.slot;
    if (depth >= FINALIZED_DEPTH) return { confirmationStatus: 'finalized', confirmations: null };
    return { confirmationStatus: depth >= 1 ? 'confirmed' : 'processed', confirmations: depth };
  }

  /** Writes the LiteSVM snapshot and the ledger file if anything changed since the last save. */
  save(force = false): void {
    if (!this.dirty && !force) return;
    const snapshotPath = join(this.dataDir, SNAPSHOT_FILE);
    const ledgerPath = join(this.dataDir, LEDGER_FILE);
    // Written aside and renamed, so a crash mid-write leaves the previous pair intact.
    this.svm.saveToFile(`${snapshotPath}.tmp`);
    const persisted: PersistedLedger = {
      slot: this.slot,
      blockhashes: this.blockhashes,
      records: [...this.records.values()],
    };
    writeFileSync(`${ledgerPath}.tmp`, JSON.stringify(persisted));
    renameSync(`${snapshotPath}.tmp`, snapshotPath);
    renameSync(`${ledgerPath}.tmp`, ledgerPath);
    this.dirty = false;
  }
}

function preflightError(err: TransactionErrorJson, logs: string[], unitsConsumed = 0n): RpcError {
  return new RpcError(-32002, `Transaction simulation failed: ${transactionErrorMessage(err)}`, {
    accounts: null,
    err,
    innerInstructions: null,
    logs,
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed,
  });
}

export function decodeBytes(encoded: string, encoding: 'base58' | 'base64'): Uint8Array {
  if (encoding === 'base64') return new Uint8Array(Buffer.from(encoded, 'base64'));
  try {
    return new Uint8Array(getBase58Encoder().encode(encoded));
  } catch {
    throw new RpcError(-32602, 'Invalid params: invalid base58 encoding');
  }
}
