import type { Address, Hex } from 'viem';
import type { StoredAuthorization, StoredEip2612Permit } from '../../chains/evm/index.ts';

// What an option offers and what a wallet sends back, as stored and as sent on the wire: data only, so every part of
// the gateway can name it without depending on the methods that make it.

export interface Eip3009Terms {
  kind: 'eip3009';
  authorization: StoredAuthorization;
}

/** An EIP-2612 permit of exactly the amount to the collector's permit puller, as offered. */
export interface Eip2612Terms {
  kind: 'eip2612';
  permit: StoredEip2612Permit;
}

/** A Permit2 transfer as offered: integers as decimal strings. */
export interface StoredPermit {
  chainId: number;
  owner: Address;
  token: Address;
  amount: string;
  /** The collector, which spends the permit and receives the tokens. */
  spender: Address;
  /** The permit's nonce derives from it, which binds the signature to this payment. */
  paymentId: string;
  deadline: string;
}

/** `approval`: the option starts with the buyer's `approve` of Permit2, its allowance being short when offered. */
export interface Permit2Terms {
  kind: 'permit2';
  permit: StoredPermit;
  approval: boolean;
}

/**
 * A native-coin transfer as offered: `value` in the coin's minor unit (wei), as a decimal string; `data` the
 * option's reference, which the transfer carries as calldata. Options offered before references have no `data`.
 */
export interface NativeTerms {
  kind: 'native';
  from: Address;
  to: Address;
  value: string;
  data?: Hex;
}

/** The Solana transfer last built for an option by the fetch operation. */
export interface StoredSolanaTransfer {
  transactionBase64: string;
  messageBytesBase64: string;
  lastValidBlockHeight: string;
}

export interface SplTerms {
  kind: 'spl';
  buyer: string;
  mint: string;
  decimals: number;
  transfer: StoredSolanaTransfer | null;
}

/**
 * An x402 `exact` payment's EIP-3009 `TransferWithAuthorization`, as the agent signed it (integers as decimal
 * strings): never offered by the gateway, it is the option the x402 facilitator records when it settles one.
 */
export interface X402Eip3009Terms {
  kind: 'x402_eip3009';
  authorization: StoredAuthorization;
}

/**
 * An x402 `exact` payment on EVM by Permit2 (`extra.assetTransferMethod: "permit2"`): the agent's signed
 * `PermitWitnessTransferFrom` (integers as decimal strings), whose spender is x402's Permit2 proxy and whose witness
 * names the recipient and the time it is valid from. Recorded by the x402 facilitator when it settles one.
 */
export interface X402Permit2Terms {
  kind: 'x402_permit2';
  chainId: number;
  owner: Address;
  permitted: { token: Address; amount: string };
  spender: Address;
  nonce: string;
  deadline: string;
  witness: { to: Address; validAfter: string };
}

/**
 * An x402 `exact` payment on Solana: the agent's transfer, signed by the agent, which the collector co-signs as fee
 * payer. Never offered by the gateway; recorded by the x402 facilitator when it settles one.
 */
export interface X402SvmTerms {
  kind: 'x402_svm';
  /** The transaction as the agent signed it, in base64 wire format. */
  transactionBase64: string;
  /** The highest block height at which its blockhash may still land (an upper bound: the height seen + 150). */
  lastValidBlockHeight: string;
}

/** The terms of the payments the x402 facilitator records, by how the agent's payload pays. */
export type X402Terms = X402Eip3009Terms | X402Permit2Terms | X402SvmTerms;

/** What the buyer must sign or send for an option, by payment method; a confirm is checked against exactly this. */
export type OptionTerms = Eip3009Terms | Eip2612Terms | Permit2Terms | NativeTerms | SplTerms | X402Terms;

export type WalletRpcAction = { type: 'walletRpc'; data: { chain_id: string; method: string; params: string } };
export type BuildAction = { type: 'build'; data: { data: string } };
export type OptionAction = WalletRpcAction | BuildAction;

/** One action's result as the wallet sends it with a confirm. */
export interface WalletResult {
  type: 'walletRpc';
  data: string[];
}
