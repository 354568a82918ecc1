import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAddress } from '@solana/kit';
import { stringifyWithBigInts } from '../json.ts';
import {
  base58,
  encodeAccount,
  isTokenProgram,
  parseMint,
  parseTokenAccount,
  tokenAmount,
  type LedgerAccount,
} from './accounts.ts';
import {
  decodeBytes,
  decodeWireTransaction,
  FINALIZED_DEPTH,
  RpcError,
  type SolanaLedger,
  type TransactionRecord,
} from './ledger.ts';
import { innerInstructionsJson, memoOf, transactionJson } from './transactions.ts';

/** What this node reports as its software version (the RPC shape of an Agave 2.2 node). */
const SOLANA_CORE_VERSION = '2.2.0';
const FEATURE_SET = 3_294_202_862;
const SLOTS_PER_EPOCH = 432_000;
const MAX_BODY_BYTES = 5 * 1024 * 1024;

type Params = unknown[];
type Handler = (params: Params) => unknown;

function invalidParams(message: string): RpcError {
  return new RpcError(-32602, `Invalid params: ${message}`);
}

function config(params: Params, index: number): Record<string, unknown> {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidParams(`expected a configuration object at position ${index}`);
  return value as Record<string, unknown>;
}

/** The commitment a read asks for; without one, the newest slot (a node's default is `finalized`). */
function commitmentOf(options: Record<string, unknown>): 'processed' | 'confirmed' | 'finalized' {
  const commitment = options.commitment ?? 'processed';
  if (commitment !== 'processed' && commitment !== 'confirmed' && commitment !== 'finalized')
    throw invalidParams(`unknown commitment: ${String(commitment)}`);
  return commitment;
}

function text(params: Params, index: number, name: string): string {
  const value = params[index];
  if (typeof value !== 'string') throw invalidParams(`${name} must be a string`);
  return value;
}

function pubkey(value: unknown): string {
  if (typeof value !== 'string' || !isAddress(value)) throw new RpcError(-32602, 'Invalid param: Invalid');
  return value;
}

function accountEncoding(
  options: Record<string, unknown>,
  fallback: 'base58' | 'base64',
): 'base58' | 'base64' | 'jsonParsed' {
  const encoding = options.encoding ?? fallback;
  if (encoding === 'base58' || encoding === 'base64' || encoding === 'jsonParsed') return encoding;
  if (encoding === 'binary') return 'base58';
  throw invalidParams(`unsupported encoding: ${String(encoding)}`);
}

function dataSlice(options: Record<string, unknown>): { offset: number; length: number } | undefined {
  const slice = options.dataSlice as { offset?: unknown; length?: unknown } | undefined;
  if (!slice) return undefined;
  if (typeof slice.offset !== 'number' || typeof slice.length !== 'number')
    throw invalidParams('dataSlice needs offset and length');
  return { offset: slice.offset, length: slice.length };
}

export interface SolanaRpcOptions {
  ledger: SolanaLedger;
  genesisHash: string;
  airdrop: (address: string, lamports: bigint) => Promise<string>;
}

type Methods = Record<string, Handler | ((params: Params) => Promise<unknown>)>;

/** What every method group reads: the ledger, and the slot context answers carry. */
interface MethodContext {
  ledger: SolanaLedger;
  withContext: (value: unknown) => { context: { slot: number; apiVersion: string }; value: unknown };
  decimals: (mint: string) => number | null;
}

function methodContext(ledger: SolanaLedger): MethodContext {
  return {
    ledger,
    withContext: (value) => ({ context: { slot: ledger.currentSlot, apiVersion: SOLANA_CORE_VERSION }, value }),
    decimals: (mint) => ledger.mintDecimals(mint),
  };
}

function encodingOfTransaction(options: Record<string, unknown>): 'base58' | 'base64' {
  const encoding = options.encoding ?? 'base58';
  if (encoding !== 'base58' && encoding !== 'base64') throw invalidParams(`unsupported encoding: ${String(encoding)}`);
  return encoding;
}

/** The cluster's identity, clock and fees. */
function clusterMethods({ ledger, withContext }: MethodContext, genesisHash: string): Methods {
  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': SOLANA_CORE_VERSION, 'feature-set': FEATURE_SET }),
    getGenesisHash: () => genesisHash,
    getIdentity: () => ({ identity: genesisHash }),
    getSlot: (params) => ledger.slotAt(commitmentOf(config(params, 0))),
    getBlockTime: (params) => {
      const slot = params[0];
      if (typeof slot !== 'number' || !Number.isInteger(slot) || slot < 0)
        throw invalidParams('slot must be a non-negative integer');
      const time = ledger.blockTime(slot);
      if (time === null) throw new RpcError(-32009, `Slot ${slot} was skipped, or missing in long-term storage`);
      return time;
    },
    getBlockHeight: () => ledger.blockHeight,
    getTransactionCount: () => ledger.transactionCount,
    getEpochInfo: () => ({
      absoluteSlot: ledger.currentSlot,
      blockHeight: ledger.blockHeight,
      epoch: Math.floor(ledger.currentSlot / SLOTS_PER_EPOCH),
      slotIndex: ledger.currentSlot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: ledger.transactionCount,
    }),
    getLatestBlockhash: () => withContext(ledger.latestBlockhash()),
    isBlockhashValid: (params) => withContext(ledger.isBlockhashValid(text(params, 0, 'blockhash'))),
    getMinimumBalanceForRentExemption: (params) => {
      const length = params[0];
      if (typeof length !== 'number' || !Number.isInteger(length) || length < 0)
        throw invalidParams('data length must be a non-negative integer');
      return ledger.minimumBalanceForRentExemption(length);
    },
    getFeeForMessage: (params) => {
      let fee: bigint | null;
      try {
        fee = ledger.feeForMessage(new Uint8Array(Buffer.from(text(params, 0, 'message'), 'base64')));
      } catch (error) {
        if (error instanceof RpcError) throw error;
        throw invalidParams(`invalid message: ${(error as Error).message}`);
      }
      return withContext(fee);
    },
    getRecentPrioritizationFees: () => [{ slot: ledger.currentSlot, prioritizationFee: 0 }],
  };
}

function matchesProgramAccountFilter(
  data: Uint8Array,
  filter: { dataSize?: number; memcmp?: { offset: number; bytes: string; encoding?: string } },
): boolean {
  if (filter.dataSize !== undefined) return data.length === filter.dataSize;
  if (filter.memcmp) {
    const wanted = decodeBytes(filter.memcmp.bytes, filter.memcmp.encoding === 'base64' ? 'base64' : 'base58');
    const actual = data.subarray(filter.memcmp.offset, filter.memcmp.offset + wanted.length);
    return actual.length === wanted.length && actual.every((byte, index) => byte === wanted[index]);
  }
  return true;
}

/** The token accounts `owner` holds, of one mint or of one token program. */
function tokenAccountsOf(
  { ledger, decimals }: MethodContext,
  owner: string,
  filter: Record<string, unknown>,
  options: Record<string, unknown>,
) {
  let program: string;
  let mint: string | undefined;
  if (typeof filter.mint === 'string') {
    mint = pubkey(filter.mint);
    const mintAccount = ledger.account(mint);
    if (!mintAccount || !parseMint(mintAccount)) throw new RpcError(-32602, 'Invalid param: could not find mint');
    program = mintAccount.owner;
  } else if (typeof filter.programId === 'string') {
    program = pubkey(filter.programId);
    if (!isTokenProgram(program)) throw new RpcError(-32602, 'Invalid param: unrecognized Token program id');
  } else {
    throw invalidParams('expected a mint or programId filter');
  }
  const encoding = accountEncoding(options, 'base64');
  return ledger
    .programAccounts(program)
    .filter(({ account }) => {
      const info = parseTokenAccount(account);
      return info !== null && info.owner === owner && (mint === undefined || info.mint === mint);
    })
    .map(({ address, account }) => ({
      pubkey: address,
      account: encodeAccount(account, encoding, dataSlice(options), decimals),
    }));
}

/** Accounts, balances and token state. */
function accountMethods(context: MethodContext): Methods {
  const { ledger, withContext, decimals } = context;
  const encoded = (account: LedgerAccount | null, options: Record<string, unknown>, fallback: 'base58' | 'base64') =>
    account ? encodeAccount(account, accountEncoding(options, fallback), dataSlice(options), decimals) : null;
  return {
    getBalance: (params) => withContext(ledger.account(pubkey(params[0]))?.lamports ?? 0n),
    getAccountInfo: (params) => withContext(encoded(ledger.account(pubkey(params[0])), config(params, 1), 'base58')),
    getMultipleAccounts: (params) => {
      const keys = params[0];
      if (!Array.isArray(keys)) throw invalidParams('expected an array of addresses');
      if (keys.length > 100) throw invalidParams('too many inputs provided; max 100');
      const options = config(params, 1);
      return withContext(keys.map((key) => encoded(ledger.account(pubkey(key)), options, 'base64')));
    },
    getProgramAccounts: (params) => {
      const program = pubkey(params[0]);
      const options = config(params, 1);
      const filters = (options.filters ?? []) as Parameters<typeof matchesProgramAccountFilter>[1][];
      const encoding = accountEncoding(options, 'base58');
      const value = ledger
        .programAccounts(program)
        .filter(({ account }) => filters.every((filter) => matchesProgramAccountFilter(account.data, filter)))
        .map(({ address, account }) => ({
          pubkey: address,
          account: encodeAccount(account, encoding, dataSlice(options), decimals),
        }));
      return options.withContext === true ? withContext(value) : value;
    },
    getTokenAccountBalance: (params) => {
      const account = ledger.account(pubkey(params[0]));
      const info = account ? parseTokenAccount(account) : null;
      const mintDecimals = info ? decimals(info.mint) : null;
      if (!info || mintDecimals === null) throw new RpcError(-32602, 'Invalid param: not a Token account');
      return withContext(tokenAmount(info.amount, mintDecimals));
    },
    getTokenSupply: (params) => {
      const account = ledger.account(pubkey(params[0]));
      const mint = account ? parseMint(account) : null;
      if (!mint) throw new RpcError(-32602, 'Invalid param: not a Token mint');
      return withContext(tokenAmount(mint.supply, mint.decimals));
    },
    getTokenAccountsByOwner: (params) =>
      withContext(tokenAccountsOf(context, pubkey(params[0]), config(params, 1), config(params, 2))),
  };
}

/** `getTransaction`: a landed transaction at the asked commitment, in the asked encoding. */
function transactionAt(ledger: SolanaLedger, params: Params): unknown {
  const options = config(params, 1);
  const commitment = options.commitment ?? 'finalized';
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  const record = ledger.transaction(text(params, 0, 'signature'));
  if (!record) return null;
  const depth = ledger.currentSlot - record.slot;
  if (depth < (commitment === 'confirmed' ? 1 : FINALIZED_DEPTH)) return null;
  const wire = new Uint8Array(Buffer.from(record.wireBase64, 'base64'));
  const decoded = decodeWireTransaction(wire);
  const maxVersion = options.maxSupportedTransactionVersion;
  if (decoded.version === 0 && maxVersion === undefined) {
    throw new RpcError(
      -32015,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const encoding = options.encoding ?? 'json';
  if (encoding !== 'json' && encoding !== 'jsonParsed' && encoding !== 'base64' && encoding !== 'base58')
    throw invalidParams(`unsupported encoding: ${String(encoding)}`);
  const parsed = encoding === 'jsonParsed';
  const transaction =
    encoding === 'base64'
      ? [record.wireBase64, 'base64']
      : encoding === 'base58'
        ? [base58(wire), 'base58']
        : transactionJson(decoded, record, parsed);
  return {
    slot: record.slot,
    blockTime: record.blockTime,
    ...(maxVersion !== undefined ? { version: decoded.version } : {}),
    transaction,
    meta: {
      err: record.err,
      status: record.err === null ? { Ok: null } : { Err: record.err },
      fee: BigInt(record.fee),
      preBalances: record.preBalances.map(BigInt),
      postBalances: record.postBalances.map(BigInt),
      innerInstructions: innerInstructionsJson(record, parsed),
      logMessages: record.logMessages,
      preTokenBalances: record.preTokenBalances,
      postTokenBalances: record.postTokenBalances,
      rewards: [],
      loadedAddresses: record.loadedAddresses,
      computeUnitsConsumed: BigInt(record.computeUnitsConsumed),
    },
  };
}

/** `getSignaturesForAddress`: newest first, paged by `before` and `until`. */
function signaturesFor(ledger: SolanaLedger, params: Params): unknown {
  const address = pubkey(params[0]);
  const options = config(params, 1);
  const limit = typeof options.limit === 'number' ? Math.min(options.limit, 1000) : 1000;
  let records = ledger.signaturesForAddress(address);
  if (typeof options.before === 'string') {
    const index = records.findIndex((record) => record.signature === options.before);
    records = index >= 0 ? records.slice(index + 1) : [];
  }
  if (typeof options.until === 'string') {
    const index = records.findIndex((record) => record.signature === options.until);
    if (index >= 0) records = records.slice(0, index);
  }
  return records.slice(0, limit).map((record) => ({
    signature: record.signature,
    slot: record.slot,
    err: record.err,
    memo: memoOf(decodeWireTransaction(new Uint8Array(Buffer.from(record.wireBase64, 'base64')))),
    blockTime: record.blockTime,
    confirmationStatus: ledger.commitmentOf(record).confirmationStatus,
  }));
}

/** Sending, simulating and looking up transactions. */
function transactionMethods({ ledger, withContext }: MethodContext): Methods {
  const signatureStatus = (record: TransactionRecord | undefined) => {
    if (!record) return null;
    const { confirmationStatus, confirmations } = ledger.commitmentOf(record);
    return {
      slot: record.slot,
      confirmations,
      err: record.err,
      status: record.err === null ? { Ok: null } : { Err: record.err },
      confirmationStatus,
    };
  };
  return {
    sendTransaction: (params) => {
      const options = config(params, 1);
      return ledger.send(decodeBytes(text(params, 0, 'transaction'), encodingOfTransaction(options)), {
        skipPreflight: options.skipPreflight === true,
      });
    },
    simulateTransaction: (params) => {
      const options = config(params, 1);
      const encoding = encodingOfTransaction(options);
      const sigVerify = options.sigVerify === true;
      const replaceRecentBlockhash = options.replaceRecentBlockhash === true;
      if (sigVerify && replaceRecentBlockhash)
        throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      const result = ledger.simulate(decodeBytes(text(params, 0, 'transaction'), encoding), {
        sigVerify,
        replaceRecentBlockhash,
      });
      return withContext({
        err: result.err,
        logs: result.logs,
        accounts: null,
        unitsConsumed: result.unitsConsumed,
        returnData: null,
        innerInstructions: null,
        replacementBlockhash: result.replacementBlockhash,
        fee: result.fee,
        loadedAccountsDataSize: null,
      });
    },
    getSignatureStatuses: (params) => {
      const signatures = params[0];
      if (!Array.isArray(signatures)) throw invalidParams('expected an array of signatures');
      if (signatures.length > 256) throw invalidParams('too many inputs provided; max 256');
      return withContext(
        signatures.map((signature) =>
          signatureStatus(typeof signature === 'string' ? ledger.transaction(signature) : undefined),
        ),
      );
    },
    getSignaturesForAddress: (params) => signaturesFor(ledger, params),
    getTransaction: (params) => transactionAt(ledger, params),
  };
}

/** Every JSON-RPC method the devnet's Solana node answers, by name. */
export function solanaRpcMethods({ ledger, genesisHash, airdrop }: SolanaRpcOptions): Methods {
  const context = methodContext(ledger);
  return {
    ...clusterMethods(context, genesisHash),
    ...accountMethods(context),
    ...transactionMethods(context),
    requestAirdrop: async (params) => {
      const address = pubkey(params[0]);
      const lamports = params[1];
      if (typeof lamports !== 'number' || !Number.isSafeInteger(lamports) || lamports <= 0)
        throw invalidParams('lamports must be a positive integer');
      return airdrop(address, BigInt(lamports));
    },
  };
}

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

async function answer(
  methods: ReturnType<typeof solanaRpcMethods>,
  request: JsonRpcRequest,
): Promise<Record<string, unknown>> {
  const id = typeof request.id === 'string' || typeof request.id === 'number' ? request.id : null;
  if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
    return { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id };
  }
  const handler = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
  if (!handler) return { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id };
  const params = request.params === undefined ? [] : request.params;
  if (!Array.isArray(params))
    return { jsonrpc: '2.0', error: { code: -32602, message: 'Invalid params: expected an array' }, id };
  try {
    return { jsonrpc: '2.0', result: await handler(params), id };
  } catch (error) {
    if (error instanceof RpcError) {
      return {
        jsonrpc: '2.0',
        error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) },
        id,
      };
    }
    return { jsonrpc: '2.0', error: { code: -32603, message: `Internal error: ${(error as Error).message}` }, id };
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** JSON-RPC 2.0 over HTTP POST (single and batch), open to browser wallets through CORS. */
export function createSolanaRpcServer(methods: ReturnType<typeof solanaRpcMethods>): Server {
  return createServer((request, response) => {
    response.setHeader('access-control-allow-origin', '*');
    response.setHeader('access-control-allow-headers', 'content-type, solana-client');
    response.setHeader('access-control-allow-methods', 'POST, OPTIONS');
    if (request.method === 'OPTIONS') {
      response.writeHead(204).end();
      return;
    }
    if (request.method !== 'POST') {
      send(response, 405, JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'Use POST' }, id: null }));
      return;
    }
    readBody(request)
      .then(async (body) => {
        let payload: unknown;
        try {
          payload = JSON.parse(body);
        } catch {
          send(
            response,
            200,
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }),
          );
          return;
        }
        if (Array.isArray(payload)) {
          if (payload.length === 0) {
            send(
              response,
              200,
              JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null }),
            );
            return;
          }
          const answers = [];
          for (const item of payload) answers.push(await answer(methods, (item ?? {}) as JsonRpcRequest));
          send(response, 200, stringifyWithBigInts(answers));
          return;
        }
        send(response, 200, stringifyWithBigInts(await answer(methods, (payload ?? {}) as JsonRpcRequest)));
      })
      .catch((error: unknown) => {
        if (!response.headersSent)
          send(
            response,
            413,
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: (error as Error).message }, id: null }),
          );
      });
  });
}

export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
