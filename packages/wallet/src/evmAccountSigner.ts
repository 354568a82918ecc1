import {
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  isAddressEqual,
  isHex,
  type LocalAccount,
  type PublicClient,
  type TypedDataDefinition,
  type WalletClient,
} from 'viem';
import { type EvmSigner, evmChainNumber } from './signers.ts';
import {
  InvalidActionError,
  TransactionRevertedError,
  UnknownChainError,
  UnsupportedActionError,
} from './walletErrors.ts';

export interface EvmAccountSignerOptions {
  /** JSON-RPC URL per CAIP-2 chain id (`eip155:8453` -> `https://...`), used to send transactions. */
  rpcUrls: Record<string, string>;
}

interface ChainClients {
  wallet: WalletClient;
  public: PublicClient;
  chain: Chain;
}

function stringParam(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new InvalidActionError(`${what} must be a string`);
  return value;
}

function requireOwnAddress(account: LocalAccount, value: unknown, method: string): void {
  const address = stringParam(value, `The address of ${method}`);
  if (!isHex(address) || address.length !== 42 || !isAddressEqual(address, account.address)) {
    throw new InvalidActionError(`${method} asks for ${address}, but this signer holds ${account.address}`);
  }
}

function quantity(value: unknown, field: string): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) {
    throw new InvalidActionError(`eth_sendTransaction ${field} must be a hex quantity`);
  }
  return BigInt(value);
}

/** A typed-data domain's chainId may be a number, a decimal string or a hex string. */
function sameChainNumber(value: unknown, expected: number): boolean {
  if (typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'bigint') return false;
  try {
    return BigInt(value) === BigInt(expected);
  } catch {
    return false;
  }
}

/** `[from, typedData]` where typedData is JSON text (or an object, as some dapps send); its domain must be this chain's. */
function typedDataOf(account: LocalAccount, chainId: string, params: unknown[]): TypedDataDefinition {
  requireOwnAddress(account, params[0], 'eth_signTypedData_v4');
  let typedData: unknown = params[1];
  if (typeof typedData === 'string') {
    try {
      typedData = JSON.parse(typedData);
    } catch {
      throw new InvalidActionError('eth_signTypedData_v4 typed data is not JSON');
    }
  }
  if (typeof typedData !== 'object' || typedData === null)
    throw new InvalidActionError('eth_signTypedData_v4 needs typed data');
  const { domain, types, primaryType, message } = typedData as Record<string, unknown>;
  if (
    typeof types !== 'object' ||
    types === null ||
    typeof primaryType !== 'string' ||
    typeof message !== 'object' ||
    message === null
  ) {
    throw new InvalidActionError('eth_signTypedData_v4 typed data needs types, primaryType and message');
  }
  const domainChainId = (domain as { chainId?: unknown } | undefined)?.chainId;
  // A signature bound to another chain could be replayed there; refuse it as wallets do.
  if (domainChainId !== undefined && !sameChainNumber(domainChainId, evmChainNumber(chainId))) {
    throw new InvalidActionError(`eth_signTypedData_v4 domain is for chain ${String(domainChainId)}, not ${chainId}`);
  }
  return typedData as TypedDataDefinition;
}

/**
 * An `EvmSigner` holding a viem local account (a private key, mnemonic or HD account). Signs typed data and
 * messages locally; sends transactions through the chain's RPC and waits for the receipt before returning the
 * hash, so a following action (e.g. a permit after its approval) sees the transaction's effect.
 */
export function evmSignerFromAccount(account: LocalAccount, options: EvmAccountSignerOptions): EvmSigner {
  const clients = new Map<string, ChainClients>();

  function clientsFor(chainId: string): ChainClients {
    const existing = clients.get(chainId);
    if (existing) return existing;
    const rpcUrl = options.rpcUrls[chainId];
    if (!rpcUrl) throw new UnknownChainError(chainId, 'no RPC URL was configured for it');
    const chain = defineChain({
      id: evmChainNumber(chainId),
      name: chainId,
      nativeCurrency: { name: 'Native coin', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    const created: ChainClients = {
      chain,
      wallet: createWalletClient({ account, chain, transport: http(rpcUrl) }),
      public: createPublicClient({ chain, transport: http(rpcUrl) }),
    };
    clients.set(chainId, created);
    return created;
  }

  async function sendTransaction(chainId: string, params: unknown[]): Promise<string> {
    const [request] = params;
    if (typeof request !== 'object' || request === null)
      throw new InvalidActionError('eth_sendTransaction needs a transaction object');
    const tx = request as Record<string, unknown>;
    if (tx.from !== undefined) requireOwnAddress(account, tx.from, 'eth_sendTransaction');
    const to = stringParam(tx.to, 'eth_sendTransaction to');
    if (!isHex(to) || to.length !== 42) throw new InvalidActionError('eth_sendTransaction to must be an address');
    if (tx.data !== undefined && (typeof tx.data !== 'string' || !isHex(tx.data))) {
      throw new InvalidActionError('eth_sendTransaction data must be hex');
    }
    const { wallet, public: reader, chain } = clientsFor(chainId);
    // `chain` makes viem check that the RPC serves the chain the action names before anything is signed.
    const hash = await wallet.sendTransaction({
      account,
      chain,
      to,
      data: tx.data as Hex | undefined,
      value: quantity(tx.value, 'value'),
      gas: quantity(tx.gas, 'gas'),
    });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new TransactionRevertedError(chainId, hash);
    return hash;
  }

  return {
    async request({ chainId, method, params }) {
      evmChainNumber(chainId);
      switch (method) {
        case 'eth_signTypedData_v4':
          return account.signTypedData(typedDataOf(account, chainId, params));
        case 'personal_sign': {
          const message = stringParam(params[0], 'personal_sign message');
          requireOwnAddress(account, params[1], 'personal_sign');
          return account.signMessage({ message: isHex(message) ? { raw: message } : message });
        }
        case 'eth_sendTransaction':
          return sendTransaction(chainId, params);
        default:
          throw new UnsupportedActionError(chainId, method, 'unknown method');
      }
    },
  };
}
