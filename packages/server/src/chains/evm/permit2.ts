import {
  type Address,
  encodeFunctionData,
  type Hex,
  hexToBigInt,
  isAddressEqual,
  keccak256,
  maxUint256,
  type PublicClient,
  stringToHex,
  type TypedDataDefinition,
} from 'viem';
import type { Clock } from '../../clock.ts';
import type { NetworkInfo } from '../registry.ts';
import { erc20Abi, PERMIT2_ADDRESS, permit2Abi } from './abis.ts';
import { PaymentRefusedError } from './errors.ts';
import type { Relayer } from './relayer.ts';
import { isExecutionRevert, revertReason } from './simulation.ts';

export const permitTransferFromTypes = {
  PermitTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
} as const;

// Type aliases rather than interfaces: viem's typed-data parameters need an implicit index signature.
export type PermitTransferFrom = {
  permitted: { token: Address; amount: bigint };
  spender: Address;
  nonce: bigint;
  deadline: bigint;
};

export interface PermitTransferTypedData {
  domain: { name: 'Permit2'; chainId: number; verifyingContract: Address };
  types: typeof permitTransferFromTypes;
  primaryType: 'PermitTransferFrom';
  message: PermitTransferFrom;
}

/**
 * The Permit2 nonce of a payment. Permit2 lets each nonce of an owner be spent once, so deriving it from the
 * payment id binds the signature to this payment: it cannot pay another one, nor this one twice.
 */
export function permit2NonceForPayment(paymentId: string): bigint {
  return hexToBigInt(keccak256(stringToHex(`paygate/permit2/${paymentId}`)));
}

/** What the buyer signs (`eth_signTypedData_v4`) so the collector may pull exactly `amount` once, for this payment. */
export function permitTransferFromTypedData(params: {
  chainId: number;
  token: Address;
  amount: bigint;
  spender: Address;
  paymentId: string;
  deadline: bigint;
}): PermitTransferTypedData {
  return {
    domain: { name: 'Permit2', chainId: params.chainId, verifyingContract: PERMIT2_ADDRESS },
    types: permitTransferFromTypes,
    primaryType: 'PermitTransferFrom',
    message: {
      permitted: { token: params.token, amount: params.amount },
      spender: params.spender,
      nonce: permit2NonceForPayment(params.paymentId),
      deadline: params.deadline,
    },
  };
}

/** How much of `token` the owner lets Permit2 move. */
export function readPermit2Allowance(client: PublicClient, owner: Address, token: Address): Promise<bigint> {
  return client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [owner, PERMIT2_ADDRESS],
  });
}

/** The `eth_sendTransaction` request a buyer sends once per token so that Permit2 signatures can move it. */
export function permit2ApprovalTransaction(params: { from: Address; token: Address }): {
  from: Address;
  to: Address;
  data: Hex;
} {
  return {
    from: params.from,
    to: params.token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [PERMIT2_ADDRESS, maxUint256] }),
  };
}

export interface ExpectedPermitTransfer {
  token: Address;
  amount: bigint;
  /** The collector, which both spends the permit and receives the tokens. */
  collector: Address;
  paymentId: string;
  /** The buyer's account, when the payment names one. */
  owner?: Address;
}

function refuseUnlessMatching(
  typedData: PermitTransferTypedData,
  expected: ExpectedPermitTransfer,
  chainId: number,
  now: Date,
): void {
  const { message, domain } = typedData;
  if (
    !isAddressEqual(domain.verifyingContract, PERMIT2_ADDRESS) ||
    domain.chainId !== chainId ||
    !isAddressEqual(message.permitted.token, expected.token)
  ) {
    throw new PaymentRefusedError(
      'token_mismatch',
      `the permit is for ${message.permitted.token} on chain ${domain.chainId}, not the quoted ${expected.token} on chain ${chainId}`,
    );
  }
  if (!isAddressEqual(message.spender, expected.collector)) {
    throw new PaymentRefusedError(
      'recipient_mismatch',
      `the permit lets ${message.spender} spend, not the collector ${expected.collector}`,
    );
  }
  if (message.permitted.amount !== expected.amount) {
    throw new PaymentRefusedError(
      'amount_mismatch',
      `the permit is for ${message.permitted.amount} minor units, the quote is ${expected.amount}`,
    );
  }
  if (message.nonce !== permit2NonceForPayment(expected.paymentId)) {
    throw new PaymentRefusedError(
      'not_bound_to_payment',
      `the permit's nonce does not belong to payment ${expected.paymentId}`,
    );
  }
  if (message.deadline <= BigInt(Math.floor(now.getTime() / 1000))) {
    throw new PaymentRefusedError(
      'authorization_expired',
      `the permit expired at ${new Date(Number(message.deadline) * 1000).toISOString()}`,
    );
  }
}

type PermitCheck = {
  typedData: PermitTransferTypedData;
  owner: Address;
  signature: Hex;
  expected: ExpectedPermitTransfer;
  clock: Clock;
};

/** Checks what can be checked without the chain: the permit against the quote, its deadline and its owner. */
function checkPermit(client: PublicClient, params: PermitCheck): void {
  const { typedData, owner, expected } = params;
  const chainId = client.chain?.id;
  if (chainId === undefined) throw new Error('the client has no chain');
  refuseUnlessMatching(typedData, expected, chainId, params.clock.now());
  if (expected.owner && !isAddressEqual(owner, expected.owner)) {
    throw new PaymentRefusedError(
      'payer_mismatch',
      `the permit is from ${owner}, the payment expects ${expected.owner}`,
    );
  }
}

/** A signed Permit2 transfer as far as explaining its refusal needs it: any of Permit2's signed transfer types. */
export interface SignedPermit2Transfer {
  typedData: TypedDataDefinition;
  owner: Address;
  signature: Hex;
  token: Address;
  amount: bigint;
  nonce: bigint;
}

/**
 * Why Permit2 refuses a signed transfer, worked out only once it did: a signature that is not the owner's (recovered
 * locally for plain accounts, asked on chain for ERC-1271 contract wallets), a spent nonce, too small a balance or
 * allowance, else the contract's own words.
 */
export async function explainPermit2Refusal(
  client: PublicClient,
  permit: SignedPermit2Transfer,
  cause: unknown,
): Promise<PaymentRefusedError> {
  const { typedData, owner, signature, token, amount, nonce } = permit;
  const [signatureValid, nonceWord, balance, allowance] = await Promise.all([
    client.verifyTypedData({ ...typedData, address: owner, signature, mode: 'eoa' }),
    client.readContract({
      address: PERMIT2_ADDRESS,
      abi: permit2Abi,
      functionName: 'nonceBitmap',
      args: [owner, nonce >> 8n],
    }),
    client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
    readPermit2Allowance(client, owner, token),
  ]);
  if (!signatureValid)
    return new PaymentRefusedError('invalid_signature', `the signature is not ${owner}'s signature of this permit`);
  if ((nonceWord >> (nonce & 0xffn)) & 1n)
    return new PaymentRefusedError('nonce_already_used', `${owner}'s Permit2 nonce ${nonce} has already been used`);
  if (balance < amount)
    return new PaymentRefusedError(
      'insufficient_balance',
      `${owner} holds ${balance} minor units, ${amount} are needed`,
    );
  if (allowance < amount)
    return new PaymentRefusedError(
      'allowance_missing',
      `${owner} lets Permit2 move ${allowance} minor units, ${amount} are needed`,
    );
  return new PaymentRefusedError('simulation_failed', `the transfer would fail on chain: ${revertReason(cause)}`);
}

/** The quoted permit, as `explainPermit2Refusal` reads it. */
function signedTransferOf(params: PermitCheck): SignedPermit2Transfer {
  const { typedData, owner, signature, expected } = params;
  return {
    typedData,
    owner,
    signature,
    token: expected.token,
    amount: expected.amount,
    nonce: typedData.message.nonce,
  };
}

/**
 * Checks a signed permit against the quote and the chain: its terms, then one simulation of `permitTransferFrom` as
 * the collector (Permit2 binds the signature to its caller), in which Permit2 itself checks the signature (ERC-1271
 * contract wallets included), the nonce, the owner's balance and its allowance: one RPC call, and the reads that
 * say why only when it fails. The simulation is a gas estimate, returned so that relaying it soon after need not ask
 * again.
 */
export async function verifyPermitTransfer(client: PublicClient, params: PermitCheck): Promise<bigint> {
  checkPermit(client, params);
  const { typedData, owner, signature } = params;
  try {
    return await client.estimateContractGas({
      account: typedData.message.spender,
      address: PERMIT2_ADDRESS,
      ...permitTransferCall(typedData, owner, signature),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainPermit2Refusal(client, signedTransferOf(params), error);
  }
}

function permitTransferCall(typedData: PermitTransferTypedData, owner: Address, signature: Hex) {
  const { message } = typedData;
  return {
    abi: permit2Abi,
    functionName: 'permitTransferFrom',
    args: [
      { permitted: message.permitted, nonce: message.nonce, deadline: message.deadline },
      { to: message.spender, requestedAmount: message.permitted.amount },
      owner,
      signature,
    ],
  } as const;
}

/**
 * Checks the permit and submits it through the relayer (the buyer's approval of Permit2, when it needed one, is
 * mined already); the tokens go to the collector. The confirm's simulation measured the gas, so a payment costs that
 * simulation and the send (the relayer simulates again when no measure is given). The network's follower sees it
 * land.
 */
export async function relayPermitTransfer(
  client: PublicClient,
  relayer: Relayer,
  network: NetworkInfo,
  params: {
    typedData: PermitTransferTypedData;
    owner: Address;
    signature: Hex;
    expected: ExpectedPermitTransfer;
    clock: Clock;
    /** The gas the confirm's simulation measured; the relayer estimates again without it. */
    gas?: bigint;
  },
): Promise<{ id: string; hash: Hex }> {
  if (!isAddressEqual(params.expected.collector, relayer.address))
    throw new Error('the expected collector is not the relayer’s account');
  checkPermit(client, params);
  try {
    return await relayer.submit({
      chain: network.caip2,
      to: PERMIT2_ADDRESS,
      data: encodeFunctionData(permitTransferCall(params.typedData, params.owner, params.signature)),
      purpose: 'permit2_transfer',
      paymentId: params.expected.paymentId,
      ...(params.gas ? { gas: params.gas } : {}),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainPermit2Refusal(client, signedTransferOf(params), error);
  }
}
