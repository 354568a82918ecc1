import { getAddressDecoder, getBase58Decoder } from '@solana/kit';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
export const MEMO_V1_PROGRAM = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';

/** Rent epoch the runtime reports for rent-exempt accounts (u64::MAX). */
export const RENT_EXEMPT_EPOCH = 18446744073709551615n;

const TOKEN_ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;
// Token-2022 accounts with extensions carry an account-type byte right after the base layout.
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

export interface LedgerAccount {
  lamports: bigint;
  data: Uint8Array;
  owner: string;
  executable: boolean;
}

export interface TokenAccountInfo {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: 'uninitialized' | 'initialized' | 'frozen';
  isNative: boolean;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

export interface MintInfo {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

const addressDecoder = getAddressDecoder();

export function addressAt(data: Uint8Array, offset: number): string {
  return addressDecoder.decode(data.subarray(offset, offset + 32));
}

export function base58(bytes: Uint8Array): string {
  return getBase58Decoder().decode(bytes);
}

function view(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

function optionalAddress(data: Uint8Array, offset: number): string | null {
  return view(data).getUint32(offset, true) === 1 ? addressAt(data, offset + 4) : null;
}

export function isTokenProgram(program: string): boolean {
  return program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM;
}

function tokenAccountKind(account: LedgerAccount): 'account' | 'mint' | null {
  if (!isTokenProgram(account.owner)) return null;
  const length = account.data.length;
  if (length === TOKEN_ACCOUNT_SIZE) return 'account';
  if (length === MINT_SIZE) return 'mint';
  if (account.owner === TOKEN_2022_PROGRAM && length > ACCOUNT_TYPE_OFFSET) {
    const type = account.data[ACCOUNT_TYPE_OFFSET];
    return type === ACCOUNT_TYPE_ACCOUNT ? 'account' : type === ACCOUNT_TYPE_MINT ? 'mint' : null;
  }
  return null;
}

export function parseTokenAccount(account: LedgerAccount): TokenAccountInfo | null {
  if (tokenAccountKind(account) !== 'account') return null;
  const data = account.data;
  const dv = view(data);
  const stateByte = data[108];
  if (stateByte === 0) return null;
  return {
    mint: addressAt(data, 0),
    owner: addressAt(data, 32),
    amount: dv.getBigUint64(64, true),
    delegate: optionalAddress(data, 72),
    state: stateByte === 2 ? 'frozen' : 'initialized',
    isNative: dv.getUint32(109, true) === 1,
    delegatedAmount: dv.getBigUint64(121, true),
    closeAuthority: optionalAddress(data, 129),
  };
}

export function parseMint(account: LedgerAccount): MintInfo | null {
  if (tokenAccountKind(account) !== 'mint') return null;
  const data = account.data;
  return {
    mintAuthority: optionalAddress(data, 0),
    supply: view(data).getBigUint64(36, true),
    decimals: data[44] ?? 0,
    isInitialized: data[45] === 1,
    freezeAuthority: optionalAddress(data, 46),
  };
}

/** Decimal string of a base-unit amount, trimmed as the RPC's `uiAmountString` is. */
export function formatUiAmount(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/**
 * The RPC's token amount object. `uiAmount` is a float only because that is the wire format
 * clients expect; `amount` is the exact value.
 */
export function tokenAmount(amount: bigint, decimals: number) {
  const uiAmountString = formatUiAmount(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

type Encoding = 'base58' | 'base64' | 'jsonParsed';

export function encodeData(data: Uint8Array, encoding: 'base58' | 'base64'): [string, string] {
  return encoding === 'base58' ? [base58(data), 'base58'] : [Buffer.from(data).toString('base64'), 'base64'];
}

function parsedTokenData(account: LedgerAccount, decimalsOfMint: (mint: string) => number | null): unknown | null {
  const program = account.owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token';
  const tokenAccount = parseTokenAccount(account);
  if (tokenAccount) {
    const decimals = decimalsOfMint(tokenAccount.mint);
    if (decimals === null) return null;
    const info: Record<string, unknown> = {
      isNative: tokenAccount.isNative,
      mint: tokenAccount.mint,
      owner: tokenAccount.owner,
      state: tokenAccount.state,
      tokenAmount: tokenAmount(tokenAccount.amount, decimals),
    };
    if (tokenAccount.delegate) {
      info.delegate = tokenAccount.delegate;
      info.delegatedAmount = tokenAmount(tokenAccount.delegatedAmount, decimals);
    }
    if (tokenAccount.closeAuthority) info.closeAuthority = tokenAccount.closeAuthority;
    return { program, parsed: { info, type: 'account' }, space: BigInt(account.data.length) };
  }
  const mint = parseMint(account);
  if (mint) {
    return {
      program,
      parsed: {
        info: {
          decimals: mint.decimals,
          freezeAuthority: mint.freezeAuthority,
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority,
          supply: mint.supply.toString(),
        },
        type: 'mint',
      },
      space: BigInt(account.data.length),
    };
  }
  return null;
}

/** An account as `getAccountInfo` and friends return it, in the requested encoding. */
export function encodeAccount(
  account: LedgerAccount,
  encoding: Encoding,
  dataSlice: { offset: number; length: number } | undefined,
  decimalsOfMint: (mint: string) => number | null,
) {
  let data: unknown;
  if (encoding === 'jsonParsed') {
    // Accounts the node cannot parse come back base64-encoded, as on a real node.
    data = parsedTokenData(account, decimalsOfMint) ?? encodeData(account.data, 'base64');
  } else {
    const bytes = dataSlice
      ? account.data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length)
      : account.data;
    data = encodeData(bytes, encoding);
  }
  return {
    data,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: RENT_EXEMPT_EPOCH,
    space: BigInt(account.data.length),
  };
}
