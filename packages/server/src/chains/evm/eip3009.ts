import { randomBytes } from 'node:crypto';
import { type Address, encodeFunctionData, type Hex, isAddressEqual, type PublicClient, toHex } from 'viem';
import type { Clock } from '../../clock.ts';
import { eip3009Abi, eip5267Abi, erc20Abi } from './abis.ts';
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
/** The terms of an EIP-3009 authorisation, the same whichever of the token's two functions takes them. */
export type Eip3009Authorization = {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
};

const AUTHORIZATION_FIELDS = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const;

/** `receiveWithAuthorization`: only `to` may submit it (the gateway's payments, to the collector). */
export const receiveWithAuthorizationTypes = { ReceiveWithAuthorization: AUTHORIZATION_FIELDS } as const;
/** `transferWithAuthorization`: anyone may submit it (x402's `exact` scheme, to the merchant's own address). */
export const transferWithAuthorizationTypes = { TransferWithAuthorization: AUTHORIZATION_FIELDS } as const;

type Eip712Domain = { name: string; version: string; chainId: number; verifyingContract: Address };

export interface ReceiveAuthorizationTypedData {
  domain: Eip712Domain;
  types: typeof receiveWithAuthorizationTypes;
  primaryType: 'ReceiveWithAuthorization';
  message: Eip3009Authorization;
}

export interface TransferAuthorizationTypedData {
  domain: Eip712Domain;
  types: typeof transferWithAuthorizationTypes;
  primaryType: 'TransferWithAuthorization';
  message: Eip3009Authorization;
}

/** An EIP-3009 authorisation as signed, for either of the token's two functions. */
export type AuthorizationTypedData = ReceiveAuthorizationTypedData | TransferAuthorizationTypedData;

/** An authorisation kept as JSON: its amounts and times as decimal strings. */
export interface StoredAuthorization {
  domain: Eip712Domain;
  message: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
}

/** The typed data of an authorisation signed for `primaryType`, from its stored form. */
export function storedAuthorizationTypedData<P extends AuthorizationTypedData['primaryType']>(
  stored: StoredAuthorization,
  primaryType: P,
): Extract<AuthorizationTypedData, { primaryType: P }> {
  const { message } = stored;
  return authorizationTypedData(stored.domain, primaryType, {
    from: message.from,
    to: message.to,
    value: BigInt(message.value),
    validAfter: BigInt(message.validAfter),
    validBefore: BigInt(message.validBefore),
    nonce: message.nonce,
  });
}

/** The stored form of an authorisation's typed data, whichever of the token's two functions it was signed for. */
export function storedAuthorizationOf(typedData: AuthorizationTypedData): StoredAuthorization {
  const { message } = typedData;
  return {
    domain: typedData.domain,
    message: {
      from: message.from,
      to: message.to,
      value: message.value.toString(),
      validAfter: message.validAfter.toString(),
      validBefore: message.validBefore.toString(),
      nonce: message.nonce,
    },
  };
}

/** The EIP-712 domain an EIP-3009 token's authorisations are signed in. */
export function eip712DomainOf(token: Eip3009Token): Eip712Domain {
  return { name: token.name, version: token.version, chainId: token.chainId, verifyingContract: token.address };
}

/** The typed data of an authorisation of the token of `domain`, signed for `primaryType`. */
export function authorizationTypedData<P extends AuthorizationTypedData['primaryType']>(
  domain: Eip712Domain,
  primaryType: P,
  message: Eip3009Authorization,
): Extract<AuthorizationTypedData, { primaryType: P }> {
  const types =
    primaryType === 'ReceiveWithAuthorization' ? receiveWithAuthorizationTypes : transferWithAuthorizationTypes;
  return { domain, types, primaryType, message } as Extract<AuthorizationTypedData, { primaryType: P }>;
}

/** EIP-5267's `fields` for a domain of exactly name, version, chainId and verifyingContract: no salt. */
const NAME_VERSION_CHAIN_CONTRACT = '0x0f';

/**
 * Reads the token's EIP-712 domain from the contract, so a signature matches what it will check: from EIP-5267's
 * `eip712Domain()` where the contract has it, else its `name()` and `version()`; `declaredVersion` stands for a
 * `version()` the contract lacks (the preset's `eip712Version`, from its source).
 */
export async function readEip3009Token(
  client: PublicClient,
  address: Address,
  declaredVersion?: string,
): Promise<Eip3009Token> {
  const chainId = client.chain?.id;
  if (chainId === undefined) throw new Error('the client has no chain');
  if (declaredVersion === undefined) {
    const reported = await readEip5267Domain(client, address, chainId);
    if (reported) return { address, name: reported.name, version: reported.version, chainId };
  }
  const [name, version] = await Promise.all([
    client.readContract({ address, abi: erc20Abi, functionName: 'name' }),
    declaredVersion ?? client.readContract({ address, abi: eip3009Abi, functionName: 'version' }),
  ]);
  return { address, name, version, chainId };
}

/** The domain the contract reports by EIP-5267, or undefined when it has no `eip712Domain()` (FiatToken). */
async function readEip5267Domain(client: PublicClient, address: Address, expectedChainId: number) {
  let domain: readonly [Hex, string, string, bigint, Address, Hex, readonly bigint[]];
  try {
    domain = await client.readContract({ address, abi: eip5267Abi, functionName: 'eip712Domain' });
  } catch (error) {
    if (isExecutionRevert(error)) return undefined;
    throw error;
  }
  const [fields, name, version, chainId, verifyingContract] = domain;
  // Authorisations are signed in a domain of these four fields only; one with a salt could not be matched.
  if (fields !== NAME_VERSION_CHAIN_CONTRACT || chainId !== BigInt(expectedChainId))
    throw new Error(`the EIP-712 domain of ${address} is not one of name, version, chain and contract`);
  if (!isAddressEqual(verifyingContract, address))
    throw new Error(`the EIP-712 domain of ${address} names another contract, ${verifyingContract}`);
  return { name, version };
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
  return authorizationTypedData(eip712DomainOf(token), 'ReceiveWithAuthorization', {
    from: params.from,
    to: params.to,
    value: params.value,
    validAfter: params.validAfter,
    validBefore: params.validBefore,
    nonce: params.nonce ?? newAuthorizationNonce(),
  });
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

/** Refuses a transfer authorisation outside its validity window at `now`: the token would refuse it too. */
export function requireTransferValidAt(typedData: TransferAuthorizationTypedData, now: Date): void {
  const seconds = BigInt(Math.floor(now.getTime() / 1000));
  const { validAfter, validBefore } = typedData.message;
  if (validBefore <= seconds)
    throw new PaymentRefusedError('authorization_expired', `the authorisation expired at unix ${validBefore}`);
  if (validAfter > seconds)
    throw new PaymentRefusedError(
      'authorization_not_yet_valid',
      `the authorisation is valid only after unix ${validAfter}`,
    );
}

/** Refuses a transfer authorisation that does not pay `recipient`. */
export function requireTransferRecipient(typedData: TransferAuthorizationTypedData, recipient: Address): void {
  if (!isAddressEqual(typedData.message.to, recipient))
    throw new PaymentRefusedError(
      'recipient_mismatch',
      `the authorisation pays ${typedData.message.to}, not ${recipient}`,
    );
}

/**
 * Why the token refuses an authorisation, worked out only once `functionName` did: a signature that is not the
 * payer's (recovered locally for plain accounts, asked on chain for ERC-1271 contract wallets), a used or cancelled
 * nonce, too small a balance, else the contract's own words.
 */
export async function explainAuthorizationRefusal(
  client: PublicClient,
  call: { typedData: AuthorizationTypedData; signature: Hex },
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
    `${authorizationCall(typedData, signature).functionName} would fail on chain: ${revertReason(cause)}`,
  );
}

/** The token's call that an authorisation signed for its primary type is submitted as. */
function authorizationCall(typedData: AuthorizationTypedData, signature: Hex) {
  const { from, to, value, validAfter, validBefore, nonce } = typedData.message;
  const functionName =
    typedData.primaryType === 'ReceiveWithAuthorization' ? 'receiveWithAuthorization' : 'transferWithAuthorization';
  return { abi: eip3009Abi, functionName, args: [from, to, value, validAfter, validBefore, nonce, signature] } as const;
}

/**
 * One simulation of the authorisation's call as `sender` would send it, in which the token itself checks the
 * signature (ERC-1271 contract wallets included), the nonce, the validity window and the payer's balance: one RPC
 * call, and the reads that say why (`explainAuthorizationRefusal`) only when it fails. Returns the gas it needs, so
 * that relaying it soon after need not ask again. Throws PaymentRefusedError when the token refuses it.
 */
export async function simulateAuthorization(
  client: PublicClient,
  params: { typedData: AuthorizationTypedData; signature: Hex; sender: Address },
): Promise<bigint> {
  const { typedData, signature } = params;
  try {
    return await client.estimateContractGas({
      account: params.sender,
      address: typedData.domain.verifyingContract,
      ...authorizationCall(typedData, signature),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainAuthorizationRefusal(client, { typedData, signature }, error);
  }
}

/**
 * Journals and sends the authorisation's call from the collector through the relayer; the network's follower sees it
 * land. With `gas` (what a simulation of it measured moments ago) the relayer sends it without asking again;
 * without, its gas estimate is the simulation, and a call that would revert is refused with its reason, nothing
 * recorded. Either way a payment costs one simulation and the send.
 */
export async function relayAuthorization(
  client: PublicClient,
  relayer: Relayer,
  params: {
    chain: string;
    typedData: AuthorizationTypedData;
    signature: Hex;
    purpose: string;
    paymentId?: string;
    gas?: bigint;
  },
): Promise<{ id: string; hash: Hex }> {
  const { typedData, signature } = params;
  try {
    return await relayer.submit({
      chain: params.chain,
      to: typedData.domain.verifyingContract,
      data: encodeFunctionData(authorizationCall(typedData, signature)),
      purpose: params.purpose,
      ...(params.paymentId ? { paymentId: params.paymentId } : {}),
      ...(params.gas ? { gas: params.gas } : {}),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainAuthorizationRefusal(client, { typedData, signature }, error);
  }
}

/**
 * Checks a signed authorisation against the quote and the chain: its terms, then one simulation of
 * `receiveWithAuthorization` as the collector (the only account allowed to call it). Returns its gas.
 */
export async function verifyReceiveAuthorization(
  client: PublicClient,
  params: { typedData: ReceiveAuthorizationTypedData; signature: Hex; expected: ExpectedReceipt; clock: Clock },
): Promise<bigint> {
  checkTerms(client, params);
  return simulateAuthorization(client, { ...params, sender: params.typedData.message.to });
}

/** Checks the buyer's authorisation against the quote and relays it to the collector (`relayAuthorization`). */
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
  return relayAuthorization(client, relayer, { ...params, purpose: 'eip3009_receive' });
}
