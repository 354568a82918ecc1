import {
  ASSOCIATED_TOKEN_PROGRAM,
  base58,
  MEMO_PROGRAM,
  MEMO_V1_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  tokenAmount,
} from './accounts.ts';
import type { DecodedTransaction, TransactionRecord } from './ledger.ts';

type Message = DecodedTransaction['message'];

interface CompiledInstruction {
  programAddressIndex: number;
  accountIndices?: readonly number[];
  data?: Uint8Array | { readonly [index: number]: number; readonly length: number };
}

function bytesOf(data: CompiledInstruction['data']): Uint8Array {
  return data ? Uint8Array.from(data as ArrayLike<number>) : new Uint8Array();
}

function u64(data: Uint8Array, offset: number): bigint | null {
  return data.length >= offset + 8
    ? new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true)
    : null;
}

function u32(data: Uint8Array, offset: number): number | null {
  return data.length >= offset + 4
    ? new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true)
    : null;
}

/** Who signs and who is writable, from the message header; lookup-table accounts are never signers. */
function accountRoles(message: Message, loaded: TransactionRecord['loadedAddresses']) {
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
  const staticCount = message.staticAccounts.length;
  const roles = message.staticAccounts.map((pubkey, index) => ({
    pubkey,
    signer: index < numSignerAccounts,
    writable:
      index < numSignerAccounts
        ? index < numSignerAccounts - numReadonlySignerAccounts
        : index < staticCount - numReadonlyNonSignerAccounts,
    source: 'transaction' as const,
  }));
  return [
    ...roles,
    ...loaded.writable.map((pubkey) => ({ pubkey, signer: false, writable: true, source: 'lookupTable' as const })),
    ...loaded.readonly.map((pubkey) => ({ pubkey, signer: false, writable: false, source: 'lookupTable' as const })),
  ];
}

/** The instructions a payment uses, in the shape `jsonParsed` gives them; others stay partially decoded. */
function parseInstruction(programId: string, accounts: string[], data: Uint8Array): Record<string, unknown> | null {
  const at = (index: number) => accounts[index] ?? '';
  if (programId === TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM) {
    const program = programId === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
    const amount = u64(data, 1);
    if (data[0] === 3 && amount !== null) {
      return {
        program,
        parsed: {
          type: 'transfer',
          info: { source: at(0), destination: at(1), authority: at(2), amount: amount.toString() },
        },
      };
    }
    if (data[0] === 12 && amount !== null && data.length >= 10) {
      return {
        program,
        parsed: {
          type: 'transferChecked',
          info: {
            source: at(0),
            mint: at(1),
            destination: at(2),
            authority: at(3),
            tokenAmount: tokenAmount(amount, data[9] ?? 0),
          },
        },
      };
    }
    if (data[0] === 14 && amount !== null && data.length >= 10) {
      return {
        program,
        parsed: {
          type: 'mintToChecked',
          info: { mint: at(0), account: at(1), mintAuthority: at(2), tokenAmount: tokenAmount(amount, data[9] ?? 0) },
        },
      };
    }
    return null;
  }
  if (programId === SYSTEM_PROGRAM) {
    const lamports = u64(data, 4);
    if (u32(data, 0) === 2 && lamports !== null) {
      return { program: 'system', parsed: { type: 'transfer', info: { source: at(0), destination: at(1), lamports } } };
    }
    const space = u64(data, 12);
    if (u32(data, 0) === 0 && lamports !== null && space !== null && data.length >= 52) {
      return {
        program: 'system',
        parsed: {
          type: 'createAccount',
          info: { source: at(0), newAccount: at(1), lamports, space, owner: base58(data.subarray(20, 52)) },
        },
      };
    }
    return null;
  }
  if (programId === ASSOCIATED_TOKEN_PROGRAM && (data.length === 0 || data[0] === 0 || data[0] === 1)) {
    return {
      program: 'spl-associated-token-account',
      parsed: {
        type: data[0] === 1 ? 'createIdempotent' : 'create',
        info: { source: at(0), account: at(1), wallet: at(2), mint: at(3), systemProgram: at(4), tokenProgram: at(5) },
      },
    };
  }
  if (programId === MEMO_PROGRAM || programId === MEMO_V1_PROGRAM) {
    return { program: 'spl-memo', parsed: new TextDecoder().decode(data) };
  }
  return null;
}

/** Memo texts in a transaction, joined the way getSignaturesForAddress reports them (`[len] text`). */
export function memoOf(decoded: DecodedTransaction): string | null {
  const memos = decoded.message.instructions
    .filter((instruction) => {
      const program = decoded.message.staticAccounts[instruction.programAddressIndex];
      return program === MEMO_PROGRAM || program === MEMO_V1_PROGRAM;
    })
    .map((instruction) => {
      const bytes = bytesOf(instruction.data);
      return `[${bytes.length}] ${new TextDecoder().decode(bytes)}`;
    });
  return memos.length > 0 ? memos.join('; ') : null;
}

export function transactionJson(decoded: DecodedTransaction, record: TransactionRecord, parsed: boolean) {
  const message = decoded.message;
  const signatures = Object.values(decoded.transaction.signatures).map((signature) =>
    base58(signature ?? new Uint8Array(64)),
  );
  const allKeys = record.accountKeys;
  const lookups =
    message.version === 0 && message.addressTableLookups
      ? message.addressTableLookups.map((lookup) => ({
          accountKey: lookup.lookupTableAddress,
          writableIndexes: [...lookup.writableIndexes],
          readonlyIndexes: [...lookup.readonlyIndexes],
        }))
      : undefined;
  const instructions = (message.instructions as readonly CompiledInstruction[]).map((instruction) => {
    const data = bytesOf(instruction.data);
    const accounts = [...(instruction.accountIndices ?? [])];
    if (!parsed)
      return { programIdIndex: instruction.programAddressIndex, accounts, data: base58(data), stackHeight: null };
    const programId = allKeys[instruction.programAddressIndex] ?? '';
    const accountKeys = accounts.map((index) => allKeys[index] ?? '');
    const decodedInstruction = parseInstruction(programId, accountKeys, data);
    return decodedInstruction
      ? { ...decodedInstruction, programId, stackHeight: null }
      : { programId, accounts: accountKeys, data: base58(data), stackHeight: null };
  });
  return {
    signatures,
    message: {
      accountKeys: parsed ? accountRoles(message, record.loadedAddresses) : [...message.staticAccounts],
      header: {
        numRequiredSignatures: message.header.numSignerAccounts,
        numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
      },
      recentBlockhash: message.lifetimeToken,
      instructions,
      ...(lookups ? { addressTableLookups: lookups } : {}),
    },
  };
}

export function innerInstructionsJson(record: TransactionRecord, parsed: boolean) {
  if (!parsed) return record.innerInstructions;
  return record.innerInstructions.map((group) => ({
    index: group.index,
    instructions: group.instructions.map((instruction) => ({
      programId: record.accountKeys[instruction.programIdIndex] ?? '',
      accounts: instruction.accounts.map((index) => record.accountKeys[index] ?? ''),
      data: instruction.data,
      stackHeight: instruction.stackHeight,
    })),
  }));
}
