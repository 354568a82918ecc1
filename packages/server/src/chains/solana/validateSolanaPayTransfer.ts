import { getBase58Encoder } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { SolanaPayOutcome } from './solanaPayTables.ts';

const TOKEN_2022_PROGRAM_ADDRESS = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const TRANSFER = 3;
const TRANSFER_CHECKED = 12;

interface TokenBalance {
  accountIndex: number;
  mint: string;
  uiTokenAmount: { amount: string };
}

/** The parts of a `getTransaction` answer (`json` encoding) the checks read. */
export interface FetchedSolanaTransaction {
  meta: {
    err: unknown;
    /** Lamports of each account key before and after. */
    preBalances?: readonly (bigint | number)[];
    postBalances?: readonly (bigint | number)[];
    preTokenBalances?: readonly TokenBalance[] | null;
    postTokenBalances?: readonly TokenBalance[] | null;
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
  } | null;
  transaction: {
    message: {
      accountKeys: readonly string[];
      instructions: readonly { programIdIndex: number; accounts: readonly number[]; data: string }[];
    };
  };
}

export interface ExpectedSolanaPayTransfer {
  reference: string;
  mint: string;
  /** The recipient's associated token account for `mint`. */
  tokenAccount: string;
  /** Token minor units, exactly. */
  amount: bigint;
}

export interface SolanaPayTransferCheck {
  outcome: Exclude<SolanaPayOutcome, 'payment_closed' | 'held'>;
  /** The owner that signed the transfer out of its token account. */
  buyer: string | null;
  /** The token account the transfer credited, and the mint and amount that reached it. */
  destination: string | null;
  mint: string | null;
  amount: bigint | null;
}

/** Every account key of a transaction, lookup-table addresses included, in index order. */
export function accountKeysOf(transaction: FetchedSolanaTransaction): string[] {
  const loaded = transaction.meta?.loadedAddresses;
  return [...transaction.transaction.message.accountKeys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])];
}

function readU64(bytes: Uint8Array, offset: number): bigint | null {
  if (bytes.length < offset + 8) return null;
  return new DataView(bytes.buffer, bytes.byteOffset + offset, 8).getBigUint64(0, true);
}

function balanceAt(balances: readonly TokenBalance[] | null | undefined, index: number): TokenBalance | undefined {
  return balances?.find((balance) => balance.accountIndex === index);
}

/**
 * The checks `@solana/pay`'s `validateTransfer` makes of a transaction that carries a request's reference: it
 * succeeded; a top-level SPL Token `Transfer` or `TransferChecked` carries the reference among its keys (where the
 * specification has wallets put it); its destination is the recipient's token account for the mint; and that
 * account's balance grew by exactly the amount. A failed transaction moved nothing: null.
 */
export function validateSolanaPayTransfer(
  transaction: FetchedSolanaTransaction,
  expected: ExpectedSolanaPayTransfer,
): SolanaPayTransferCheck | null {
  const meta = transaction.meta;
  if (!meta || meta.err !== null) return null;
  const keys = accountKeysOf(transaction);
  const base58 = getBase58Encoder();
  const transfers = transaction.transaction.message.instructions.flatMap((instruction) => {
    const program = keys[instruction.programIdIndex];
    if (program !== TOKEN_PROGRAM_ADDRESS && program !== TOKEN_2022_PROGRAM_ADDRESS) return [];
    const data = new Uint8Array(base58.encode(instruction.data));
    const accounts = instruction.accounts.map((index) => ({ index, key: keys[index] }));
    if (data[0] === TRANSFER && accounts.length >= 3) {
      const [, destination, authority] = accounts;
      return [{ destination, authority, mintKey: undefined, amount: readU64(data, 1), accounts }];
    }
    if (data[0] === TRANSFER_CHECKED && accounts.length >= 4) {
      const [, mint, destination, authority] = accounts;
      return [{ destination, authority, mintKey: mint?.key, amount: readU64(data, 1), accounts }];
    }
    return [];
  });
  const transfer = transfers.findLast((candidate) =>
    candidate.accounts.some((account) => account.key === expected.reference),
  );
  if (!transfer?.destination)
    return { outcome: 'no_transfer', buyer: null, destination: null, mint: null, amount: null };
  const destination = transfer.destination;
  const pre = balanceAt(meta.preTokenBalances, destination.index);
  const post = balanceAt(meta.postTokenBalances, destination.index);
  const mint = post?.mint ?? transfer.mintKey ?? null;
  const received = post ? BigInt(post.uiTokenAmount.amount) - BigInt(pre?.uiTokenAmount.amount ?? '0') : null;
  const found = {
    buyer: transfer.authority?.key ?? null,
    destination: destination.key ?? null,
    mint,
    amount: received ?? transfer.amount,
  };
  if (mint !== expected.mint || (transfer.mintKey !== undefined && transfer.mintKey !== expected.mint))
    return { outcome: 'wrong_mint', ...found };
  if (destination.key !== expected.tokenAccount) return { outcome: 'wrong_recipient', ...found };
  if (received !== expected.amount || transfer.amount !== expected.amount) return { outcome: 'wrong_amount', ...found };
  return { outcome: 'paid', ...found };
}
