import { decompileTransactionMessage, getCompiledTransactionMessageDecoder, type Transaction } from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';

/** Solana's base fee per signature, in lamports. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
/**
 * The rent a created associated token account holds: the rent-exempt minimum of 170 bytes (a Token-2022 account
 * with the immutable-owner extension associated accounts get; a classic SPL Token account, 165 bytes, takes
 * 2,039,280), at Solana's rent of 3,480 lamports per byte-year for two years, over 128 bytes of account overhead.
 */
export const TOKEN_ACCOUNT_RENT = (128n + 170n) * 3_480n * 2n;

const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;
/** Compute units an instruction gets when the transaction sets no limit, and the most a transaction gets. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_COMPUTE_UNITS = 1_400_000n;
const MICROLAMPORTS_PER_LAMPORT = 1_000_000n;
/** The associated token program's `Create` (empty data, or 0) and `CreateIdempotent` (1): account 0 pays the rent. */
const ATA_CREATE = 0;
const ATA_CREATE_IDEMPOTENT = 1;
/** The System program's `CreateAccount`: a u32 index, then the lamports (u64) the funder, account 0, puts in. */
const SYSTEM_CREATE_ACCOUNT = 0n;

function littleEndian(data: ArrayLike<number>, from: number, length: number): bigint {
  let value = 0n;
  for (let index = length - 1; index >= 0; index--) value = (value << 8n) | BigInt(data[from + index] ?? 0);
  return value;
}

/**
 * The most a transaction can take from `feePayer` for the network, read from its message: the base fee of each of
 * its signatures, the priority fee its compute budget sets (price × limit), and what it may put into accounts it
 * creates with the payer's lamports (an associated token account's rent, even when `CreateIdempotent` will find
 * the account there; a System account's lamports). The fee actually taken is entered when the transaction is final.
 */
export function maxNetworkFeeOf(transaction: Transaction, feePayer: string): bigint {
  const { instructions } = decompileTransactionMessage(
    getCompiledTransactionMessageDecoder().decode(transaction.messageBytes),
  );
  let fee = BigInt(Object.keys(transaction.signatures).length) * LAMPORTS_PER_SIGNATURE;
  let unitLimit: bigint | undefined;
  let unitPrice = 0n;
  let otherInstructions = 0n;
  for (const instruction of instructions) {
    const program = instruction.programAddress;
    const data = instruction.data ?? new Uint8Array();
    if (program === COMPUTE_BUDGET_PROGRAM) {
      if (data[0] === SET_COMPUTE_UNIT_LIMIT) unitLimit = littleEndian(data, 1, 4);
      if (data[0] === SET_COMPUTE_UNIT_PRICE) unitPrice = littleEndian(data, 1, 8);
      continue;
    }
    otherInstructions += 1n;
    if (instruction.accounts?.[0]?.address !== feePayer) continue;
    const kind = data[0] ?? ATA_CREATE;
    if (program === ASSOCIATED_TOKEN_PROGRAM_ADDRESS && (kind === ATA_CREATE || kind === ATA_CREATE_IDEMPOTENT))
      fee += TOKEN_ACCOUNT_RENT;
    if (program === SYSTEM_PROGRAM_ADDRESS && data.length >= 12 && littleEndian(data, 0, 4) === SYSTEM_CREATE_ACCOUNT)
      fee += littleEndian(data, 4, 8);
  }
  const units = unitLimit ?? otherInstructions * DEFAULT_UNITS_PER_INSTRUCTION;
  const limit = units < MAX_COMPUTE_UNITS ? units : MAX_COMPUTE_UNITS;
  return fee + (unitPrice * limit + MICROLAMPORTS_PER_LAMPORT - 1n) / MICROLAMPORTS_PER_LAMPORT;
}
