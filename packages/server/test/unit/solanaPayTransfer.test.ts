import { getBase58Decoder } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { describe, expect, it } from 'vitest';
import {
  type FetchedSolanaTransaction,
  validateSolanaPayTransfer,
} from '../../src/chains/solana/validateSolanaPayTransfer.ts';
import { parseTransferRequestUri, transferRequestUri } from '../../src/solanaPay/transferRequestUri.ts';

// Well-formed base58 keys; only their identity matters here.
const BUYER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const SOURCE = 'HWHvQhFmJB3NUcu1aihKmrKegfVxBEHzwVX6yZCKEsi1';
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const OTHER_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const COLLECTOR_ACCOUNT = 'BPFLoaderUpgradeab1e11111111111111111111111';
const OTHER_ACCOUNT = 'SysvarRent111111111111111111111111111111111';
const REFERENCE = 'Vote111111111111111111111111111111111111111';
const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

function transferCheckedData(amount: bigint, decimals: number): string {
  const bytes = new Uint8Array(10);
  bytes[0] = 12;
  new DataView(bytes.buffer).setBigUint64(1, amount, true);
  bytes[9] = decimals;
  return getBase58Decoder().decode(bytes);
}

function transferData(amount: bigint): string {
  const bytes = new Uint8Array(9);
  bytes[0] = 3;
  new DataView(bytes.buffer).setBigUint64(1, amount, true);
  return getBase58Decoder().decode(bytes);
}

interface Shape {
  amount?: bigint;
  /** What the destination's balance grew by (the amount unless given). */
  received?: bigint;
  destination?: string;
  mint?: string;
  checked?: boolean;
  reference?: string | null;
  /** The reference on another instruction than the transfer. */
  referenceElsewhere?: boolean;
  err?: unknown;
}

/** A transaction as getTransaction (json) answers it: the buyer's transfer to `destination` with the reference. */
function transaction(shape: Shape = {}): FetchedSolanaTransaction {
  const amount = shape.amount ?? 10_000_000n;
  const received = shape.received ?? amount;
  const mint = shape.mint ?? MINT;
  const reference = shape.reference === undefined ? REFERENCE : shape.reference;
  // 0 buyer (signer), 1 source, 2 destination, 3 mint, 4 token program, 5 memo program, 6 reference
  const keys = [BUYER, SOURCE, shape.destination ?? COLLECTOR_ACCOUNT, mint, TOKEN_PROGRAM_ADDRESS, MEMO_PROGRAM];
  if (reference) keys.push(reference);
  const referenceIndex = reference ? [6] : [];
  const transfer =
    shape.checked === false
      ? {
          programIdIndex: 4,
          accounts: [1, 2, 0, ...(shape.referenceElsewhere ? [] : referenceIndex)],
          data: transferData(amount),
        }
      : {
          programIdIndex: 4,
          accounts: [1, 3, 2, 0, ...(shape.referenceElsewhere ? [] : referenceIndex)],
          data: transferCheckedData(amount, 6),
        };
  const memo = { programIdIndex: 5, accounts: shape.referenceElsewhere ? referenceIndex : [], data: '' };
  return {
    meta: {
      err: shape.err ?? null,
      preTokenBalances: [
        { accountIndex: 1, mint, uiTokenAmount: { amount: '50000000' } },
        { accountIndex: 2, mint, uiTokenAmount: { amount: '7' } },
      ],
      postTokenBalances: [
        { accountIndex: 1, mint, uiTokenAmount: { amount: (50_000_000n - amount).toString() } },
        { accountIndex: 2, mint, uiTokenAmount: { amount: (7n + received).toString() } },
      ],
      loadedAddresses: { writable: [], readonly: [] },
    },
    transaction: { message: { accountKeys: keys, instructions: [memo, transfer] } },
  };
}

const expected = { reference: REFERENCE, mint: MINT, tokenAccount: COLLECTOR_ACCOUNT, amount: 10_000_000n };

describe("Solana Pay transfer checks (the cases of @solana/pay's validateTransfer)", () => {
  it('accepts the exact amount of the mint to the recipient token account, with the reference on the transfer', () => {
    expect(validateSolanaPayTransfer(transaction(), expected)).toEqual({
      outcome: 'paid',
      buyer: BUYER,
      destination: COLLECTOR_ACCOUNT,
      mint: MINT,
      amount: 10_000_000n,
    });
    expect(validateSolanaPayTransfer(transaction({ checked: false }), expected)?.outcome).toBe('paid');
  });

  it('ignores a transaction that failed: it moved nothing', () => {
    expect(validateSolanaPayTransfer(transaction({ err: { InstructionError: [1, 'Custom'] } }), expected)).toBeNull();
    expect(validateSolanaPayTransfer({ ...transaction(), meta: null }, expected)).toBeNull();
  });

  it('refuses a different amount, less or more ("amount not transferred")', () => {
    for (const amount of [9_999_999n, 10_000_001n, 1n]) {
      expect(validateSolanaPayTransfer(transaction({ amount }), expected)).toMatchObject({
        outcome: 'wrong_amount',
        amount,
      });
    }
    // The instruction says the amount, but the account received something else (another transfer took part away).
    expect(validateSolanaPayTransfer(transaction({ received: 5n }), expected)?.outcome).toBe('wrong_amount');
  });

  it('refuses another mint ("invalid mint"), and another destination ("invalid recipient")', () => {
    expect(validateSolanaPayTransfer(transaction({ mint: OTHER_MINT }), expected)).toMatchObject({
      outcome: 'wrong_mint',
      mint: OTHER_MINT,
    });
    expect(validateSolanaPayTransfer(transaction({ destination: OTHER_ACCOUNT }), expected)).toMatchObject({
      outcome: 'wrong_recipient',
      destination: OTHER_ACCOUNT,
    });
  });

  it('refuses a transaction whose transfer does not carry the reference ("invalid reference")', () => {
    expect(validateSolanaPayTransfer(transaction({ referenceElsewhere: true }), expected)?.outcome).toBe('no_transfer');
    expect(validateSolanaPayTransfer(transaction({ reference: null }), expected)?.outcome).toBe('no_transfer');
  });
});

describe('Solana Pay transfer request URIs', () => {
  it('builds the request the specification describes and parses it back', () => {
    const uri = transferRequestUri({
      recipient: BUYER,
      amount: 10_500_000n,
      decimals: 6,
      splToken: MINT,
      references: [REFERENCE],
      label: 'Corner Shop & Co',
      message: 'Payment pay_1 — thanks',
    });
    expect(uri).toBe(
      `solana:${BUYER}?amount=10.5&spl-token=${MINT}&reference=${REFERENCE}&label=Corner%20Shop%20%26%20Co&message=Payment%20pay_1%20%E2%80%94%20thanks`,
    );
    expect(parseTransferRequestUri(uri)).toEqual({
      recipient: BUYER,
      amount: '10.5',
      splToken: MINT,
      references: [REFERENCE],
      label: 'Corner Shop & Co',
      message: 'Payment pay_1 — thanks',
      memo: undefined,
    });
    expect(parseTransferRequestUri('solana:https%3A%2F%2Fexample.com')).toBeNull();
    expect(parseTransferRequestUri('ethereum:0xabc')).toBeNull();
  });
});
