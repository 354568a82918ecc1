import { randomBytes } from 'node:crypto';
import {
  type Address,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  type PublicClient,
  type TypedData,
  toHex,
} from 'viem';
import type { Clock } from '../../clock.ts';
import { eip3009Abi, erc20Abi } from './abis.ts';
import { PaymentRefusedError } from './errors.ts';
import type { Relayer } from './relayer.ts';
import { isExecutionRevert, revertReason } from './simulation.ts';

/** The EIP-712 domain of an EIP-3009 token, as the token contract itself reports it. */
export interface Eip3009Token {
  address: Address;
  name: string;
  version: string;
  chainId: number;
}

// A type alias rather than an interface: viem's typed-data parameters need an implicit index signature.
export type ReceiveAuthorization = {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
};

export const receiveWithAuthorizationTypes = {
  ReceiveWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export interface ReceiveAuthorizationTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: Address };
  types: typeof receiveWithAuthorizationTypes;
  primaryType: 'ReceiveWithAuthorization';
  message: ReceiveAuthorization;
}

/** Reads the token's EIP-712 name and version from the contract, so a signature matches what it will check. */
export async function readEip3009Token(client: PublicClient, address: Address): Promise<Eip3009Token> {
  const [name, version] = await Promise.all([
    client.readContract({ address, abi: erc20Abi, functionName: 'name' }),
    client.readContract({ address, abi: eip3009Abi, functionName: 'version' }),
  ]);
  const chainId = client.chain?.id;
  if (chainId === undefined) throw new Error('the client has no chain');
  return { address, name, version, chainId };
}

/** A fresh random 32-byte authorisation nonce; EIP-3009 nonces are unordered and single-use per payer. */
export function newAuthorizationNonce(): Hex {
  return toHex(randomBytes(32));
}

/** What the buyer signs (`eth_signTypedData_v4`) to let the collector pull `value` from them once. */
export function receiveWithAuthorizationTypedData(params: {
  token: Eip3009Token;
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce?: Hex;
}): ReceiveAuthorizationTypedData {
  const { token } = params;
  return {
    domain: { name: token.name, version: token.version, chainId: token.chainId, verifyingContract: token.address },
    types: receiveWithAuthorizationTypes,
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: params.from,
      to: params.to,
      value: params.value,
      validAfter: params.validAfter,
      validBefore: params.validBefore,
      nonce: params.nonce ?? newAuthorizationNonce(),
    },
  };
}

/** What the service quoted: the authorisation must match it exactly. */
export interface ExpectedReceipt {
  token: Address;
  collector: Address;
  value: bigint;
  /** The buyer's account, when the payment names one. */
  from?: Address;
}

function refuseUnlessMatching(
  typedData: ReceiveAuthorizationTypedData,
  expected: ExpectedReceipt,
  chainId: number,
  now: Date,
): void {
  const { message, domain } = typedData;
  if (!isAddressEqual(domain.verifyingContract, expected.token) || domain.chainId !== chainId) {
    throw new PaymentRefusedError(
      'token_mismatch',
      `the authorisation is for token ${domain.verifyingContract} on chain ${domain.chainId}, not the quoted ${expected.token} on chain ${chainId}`,
    );
  }
  if (!isAddressEqual(message.to, expected.collector)) {
    throw new PaymentRefusedError(
      'recipient_mismatch',
      `the authorisation pays ${message.to}, not the collector ${expected.collector}`,
    );
  }
  if (message.value !== expected.value) {
    throw new PaymentRefusedError(
      'amount_mismatch',
      `the authorisation is for ${message.value} minor units, the quote is ${expected.value}`,
    );
  }
  if (expected.from && !isAddressEqual(message.from, expected.from)) {
    throw new PaymentRefusedError(
      'payer_mismatch',
      `the authorisation is from ${message.from}, the payment expects ${expected.from}`,
    );
  }
  const nowSeconds = BigInt(Math.floor(now.getTime() / 1000));
  if (message.validBefore <= nowSeconds) {
    throw new PaymentRefusedError(
      'authorization_expired',
      `the authorisation expired at ${new Date(Number(message.validBefore) * 1000).toISOString()}`,
    );
  }
  if (message.validAfter >= nowSeconds) {
    throw new PaymentRefusedError(
      'authorization_not_yet_valid',
      `the authorisation is valid only after ${new Date(Number(message.validAfter) * 1000).toISOString()}`,
    );
  }
}

/** Checks what can be checked without the chain: the terms against the quote and the validity window. */
function checkTerms(
  client: PublicClient,
  params: { typedData: ReceiveAuthorizationTypedData; expected: ExpectedReceipt; clock: Clock },
): void {
  const chainId = client.chain?.id;
  if (chainId === undefined) throw new Error('the client has no chain');
  refuseUnlessMatching(params.typedData, params.expected, chainId, params.clock.now());
}

/** An EIP-3009 authorisation as signed: the same terms, whichever of the token's two functions takes them. */
export interface AuthorizationTypedData {
  domain: ReceiveAuthorizationTypedData['domain'];
  types: TypedData;
  primaryType: string;
  message: ReceiveAuthorization;
}

/**
 * Why the token refuses an authorisation, worked out only once `functionName` did: a signature that is not the
 * payer's (recovered locally for plain accounts, asked on chain for ERC-1271 contract wallets), a used or cancelled
 * nonce, too small a balance, else the contract's own words.
 */
export async function explainAuthorizationRefusal(
  client: PublicClient,
  call: {
    functionName: 'receiveWithAuthorization' | 'transferWithAuthorization';
    typedData: AuthorizationTypedData;
    signature: Hex;
  },
  cause: unknown,
): Promise<PaymentRefusedError> {
  const { typedData, signature } = call;
  const { from, value, nonce } = typedData.message;
  const token = typedData.domain.verifyingContract;
  const [signatureValid, nonceUsed, balance] = await Promise.all([
    client.verifyTypedData({ ...typedData, address: from, signature, mode: 'eoa' }),
    client.readContract({ address: token, abi: eip3009Abi, functionName: 'authorizationState', args: [from, nonce] }),
    client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [from] }),
  ]);
  if (!signatureValid)
    return new PaymentRefusedError(
      'invalid_signature',
      `the signature is not ${from}'s signature of this authorisation`,
    );
  if (nonceUsed)
    return new PaymentRefusedError(
      'nonce_already_used',
      `the authorisation nonce ${nonce} has already been used or cancelled`,
    );
  if (balance < value)
    return new PaymentRefusedError(
      'insufficient_balance',
      `${from} holds ${balance} minor units, the payment needs ${value}`,
    );
  return new PaymentRefusedError(
    'simulation_failed',
    `${call.functionName} would fail on chain: ${revertReason(cause)}`,
  );
}

/**
 * Checks a signed authorisation against the quote and the chain: its terms, then one simulation of
 * `receiveWithAuthorization` as the collector (the only account allowed to call it), in which the token itself checks
 * the signature (ERC-1271 contract wallets included), the nonce and the payer's balance: one RPC call, and the
 * reads that say why only when it fails. The simulation is a gas estimate, returned so that relaying it soon after
 * need not ask again.
 */
export async function verifyReceiveAuthorization(
  client: PublicClient,
  params: { typedData: ReceiveAuthorizationTypedData; signature: Hex; expected: ExpectedReceipt; clock: Clock },
): Promise<bigint> {
  checkTerms(client, params);
  const { typedData, signature } = params;
  try {
    return await client.estimateContractGas({
      account: typedData.message.to,
      address: typedData.domain.verifyingContract,
      ...receiveCall(typedData, signature),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainAuthorizationRefusal(
      client,
      { functionName: 'receiveWithAuthorization', typedData, signature },
      error,
    );
  }
}

function receiveCall(typedData: ReceiveAuthorizationTypedData, signature: Hex) {
  const { from, to, value, validAfter, validBefore, nonce } = typedData.message;
  return {
    abi: eip3009Abi,
    functionName: 'receiveWithAuthorization',
    args: [from, to, value, validAfter, validBefore, nonce, signature],
  } as const;
}

/**
 * Checks the buyer's authorisation and submits it through the relayer. The confirm's simulation measured the gas;
 * without that measure the relayer's gas estimate is the simulation (a call that would revert is refused, with its
 * reason, and nothing is recorded). Either way a payment costs one simulation and the send. Returns the relayed transaction, which the network's follower sees land.
 */
export async function relayReceiveWithAuthorization(
  client: PublicClient,
  relayer: Relayer,
  params: {
    chain: string;
    typedData: ReceiveAuthorizationTypedData;
    signature: Hex;
    expected: ExpectedReceipt;
    clock: Clock;
    paymentId?: string;
    /** The gas the confirm's simulation measured; the relayer estimates again without it. */
    gas?: bigint;
  },
): Promise<{ id: string; hash: Hex }> {
  if (!isAddressEqual(params.expected.collector, relayer.address))
    throw new Error('the expected collector is not the relayer’s account');
  checkTerms(client, params);
  try {
    return await relayer.submit({
      chain: params.chain,
      to: params.typedData.domain.verifyingContract,
      data: encodeFunctionData(receiveCall(params.typedData, params.signature)),
      purpose: 'eip3009_receive',
      ...(params.paymentId ? { paymentId: params.paymentId } : {}),
      ...(params.gas ? { gas: params.gas } : {}),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainAuthorizationRefusal(
      client,
      { functionName: 'receiveWithAuthorization', typedData: params.typedData, signature: params.signature },
      error,
    );
  }
}
