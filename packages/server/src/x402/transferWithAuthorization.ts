import { type Address, encodeFunctionData, type Hex, isAddressEqual, parseAbi, type PublicClient } from 'viem';
import { type Eip3009Token, explainAuthorizationRefusal } from '../chains/evm/eip3009.ts';
import { PaymentRefusedError } from '../chains/evm/errors.ts';
import type { Relayer } from '../chains/evm/relayer.ts';
import { isExecutionRevert } from '../chains/evm/simulation.ts';

/**
 * EIP-3009's `transferWithAuthorization`, which x402's `exact` scheme signs on EVM: any account may submit it, and
 * the token moves `value` from `from` to `to` once per nonce. Circle's FiatToken v2.2 takes the signature as bytes,
 * so contract wallets (ERC-1271) can sign.
 */
export const transferWithAuthorizationAbi = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
]);

export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

// A type alias rather than an interface: viem's typed-data parameters need an implicit index signature.
export type TransferAuthorization = {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
};

export interface TransferAuthorizationTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: Address };
  types: typeof transferWithAuthorizationTypes;
  primaryType: 'TransferWithAuthorization';
  message: TransferAuthorization;
}

/** The typed data an authorisation of `token` was signed as. */
export function transferAuthorizationTypedData(
  token: Eip3009Token,
  message: TransferAuthorization,
): TransferAuthorizationTypedData {
  return {
    domain: { name: token.name, version: token.version, chainId: token.chainId, verifyingContract: token.address },
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message,
  };
}

function transferCall(typedData: TransferAuthorizationTypedData, signature: Hex) {
  const { from, to, value, validAfter, validBefore, nonce } = typedData.message;
  return {
    abi: transferWithAuthorizationAbi,
    functionName: 'transferWithAuthorization',
    args: [from, to, value, validAfter, validBefore, nonce, signature],
  } as const;
}

/**
 * One simulation of `transferWithAuthorization` as `sender` would send it, in which the token itself checks the
 * signature (contract wallets included), the nonce, the validity window and the payer's balance: one RPC call, and
 * the reads that say why only when it fails. Returns the gas it needs, so that relaying it soon after need not ask
 * again. Throws PaymentRefusedError when the token refuses it.
 */
export async function simulateTransferWithAuthorization(
  client: PublicClient,
  params: { typedData: TransferAuthorizationTypedData; signature: Hex; sender: Address },
): Promise<bigint> {
  const { typedData, signature } = params;
  try {
    return await client.estimateContractGas({
      account: params.sender,
      address: typedData.domain.verifyingContract,
      ...transferCall(typedData, signature),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainAuthorizationRefusal(
      client,
      { functionName: 'transferWithAuthorization', typedData, signature },
      error,
    );
  }
}

/**
 * Journals and sends the authorisation's transfer from the collector through the relayer, only when it pays
 * `recipient`; the network's follower sees it land. With `gas` (what a simulation of it measured moments ago) the relayer sends it without asking again;
 * without, its gas estimate is the simulation, and a call that would revert is refused with its reason, nothing
 * recorded.
 */
export async function relayTransferWithAuthorization(
  client: PublicClient,
  relayer: Relayer,
  params: {
    chain: string;
    typedData: TransferAuthorizationTypedData;
    signature: Hex;
    recipient: Address;
    purpose: string;
    paymentId: string;
    gas?: bigint;
  },
): Promise<{ id: string; hash: Hex }> {
  const { typedData, signature } = params;
  if (!isAddressEqual(typedData.message.to, params.recipient))
    throw new PaymentRefusedError(
      'recipient_mismatch',
      `the authorisation pays ${typedData.message.to}, not ${params.recipient}`,
    );
  try {
    return await relayer.submit({
      chain: params.chain,
      to: typedData.domain.verifyingContract,
      data: encodeFunctionData(transferCall(typedData, signature)),
      purpose: params.purpose,
      paymentId: params.paymentId,
      ...(params.gas ? { gas: params.gas } : {}),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainAuthorizationRefusal(
      client,
      { functionName: 'transferWithAuthorization', typedData, signature },
      error,
    );
  }
}
