import {
  type Address,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  parseAbi,
  parseErc6492Signature,
  type PublicClient,
} from 'viem';
import { PERMIT2_ADDRESS } from '../chains/evm/abis.ts';
import { PaymentRefusedError } from '../chains/evm/errors.ts';
import { explainPermit2Refusal } from '../chains/evm/permit2.ts';
import type { Relayer } from '../chains/evm/relayer.ts';
import { isExecutionRevert, revertReason } from '../chains/evm/simulation.ts';
import type { X402Permit2Terms } from '../gateway/methods/terms.ts';

/**
 * x402's `x402ExactPermit2Proxy`, at the same address on every chain: the spender x402's `exact` EVM client names in
 * a Permit2 payment. Its `settle` checks the witness (`validAfter` passed) and calls Permit2's
 * `permitWitnessTransferFrom`, paying exactly the permitted amount to `witness.to`; anyone may send it.
 */
export const X402_EXACT_PERMIT2_PROXY: Address = '0x402085c248EeA27D92E8b30b2C58ed07f9E20001';

/** The proxy's `settle` and its errors, as `@x402/evm`'s `x402ExactPermit2ProxyABI` declares them. */
const x402ExactPermit2ProxyAbi = parseAbi([
  'struct TokenPermissions { address token; uint256 amount; }',
  'struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }',
  'struct Witness { address to; uint256 validAfter; }',
  'function settle(PermitTransferFrom permit, address owner, Witness witness, bytes signature)',
  'error InvalidAmount()',
  'error InvalidDestination()',
  'error InvalidOwner()',
  'error InvalidPermit2Address()',
  'error PaymentTooEarly()',
  'error ReentrancyGuardReentrantCall()',
]);

/** What x402's client signs: Permit2's `PermitWitnessTransferFrom` with x402's `Witness(address to,uint256 validAfter)`. */
const permitWitnessTransferFromTypes = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Witness' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  Witness: [
    { name: 'to', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const;

interface PermitWitnessTypedData {
  domain: { name: 'Permit2'; chainId: number; verifyingContract: Address };
  types: typeof permitWitnessTransferFromTypes;
  primaryType: 'PermitWitnessTransferFrom';
  message: {
    permitted: { token: Address; amount: bigint };
    spender: Address;
    nonce: bigint;
    deadline: bigint;
    witness: { to: Address; validAfter: bigint };
  };
}

/** The typed data the stored permit was signed as. */
export function permitWitnessTypedData(terms: X402Permit2Terms): PermitWitnessTypedData {
  return {
    domain: { name: 'Permit2', chainId: terms.chainId, verifyingContract: PERMIT2_ADDRESS },
    types: permitWitnessTransferFromTypes,
    primaryType: 'PermitWitnessTransferFrom',
    message: {
      permitted: { token: terms.permitted.token, amount: BigInt(terms.permitted.amount) },
      spender: terms.spender,
      nonce: BigInt(terms.nonce),
      deadline: BigInt(terms.deadline),
      witness: { to: terms.witness.to, validAfter: BigInt(terms.witness.validAfter) },
    },
  };
}

/** Refuses a permit outside its validity at `now`: the proxy (`validAfter`) or Permit2 (`deadline`) would refuse it. */
export function requirePermitValidAt(terms: X402Permit2Terms, now: Date): void {
  const seconds = BigInt(Math.floor(now.getTime() / 1000));
  if (BigInt(terms.deadline) < seconds)
    throw new PaymentRefusedError('authorization_expired', `the permit expired at unix ${terms.deadline}`);
  if (BigInt(terms.witness.validAfter) > seconds)
    throw new PaymentRefusedError(
      'authorization_not_yet_valid',
      `the permit is valid only after unix ${terms.witness.validAfter}`,
    );
}

/**
 * The proxy's `settle` of the permit, encoded as x402's own facilitator encodes it: a counterfactual wallet's
 * ERC-6492 wrapper is taken off the signature, which Permit2 checks as the wallet's own (ERC-1271).
 */
function settleCall(typedData: PermitWitnessTypedData, owner: Address, signature: Hex) {
  const { permitted, nonce, deadline, witness } = typedData.message;
  return {
    abi: x402ExactPermit2ProxyAbi,
    functionName: 'settle',
    args: [{ permitted, nonce, deadline }, owner, witness, parseErc6492Signature(signature).signature],
  } as const;
}

type SignedPermit = { typedData: PermitWitnessTypedData; owner: Address; signature: Hex };

/**
 * Why the proxy's `settle` reverts: no proxy on the chain, a `validAfter` the chain's clock has not reached, else
 * what Permit2 refuses (`explainPermit2Refusal`).
 */
async function explainSettleRefusal(
  client: PublicClient,
  permit: SignedPermit,
  cause: unknown,
): Promise<PaymentRefusedError> {
  const code = await client.getCode({ address: X402_EXACT_PERMIT2_PROXY });
  if (!code || code === '0x')
    return new PaymentRefusedError(
      'proxy_not_deployed',
      `x402's Permit2 proxy ${X402_EXACT_PERMIT2_PROXY} is not deployed on chain ${client.chain?.id}`,
    );
  if (revertReason(cause) === 'PaymentTooEarly')
    return new PaymentRefusedError(
      'authorization_not_yet_valid',
      `the chain's time has not reached the permit's validAfter ${permit.typedData.message.witness.validAfter}`,
    );
  const { message } = permit.typedData;
  return explainPermit2Refusal(
    client,
    {
      ...permit,
      token: message.permitted.token,
      amount: message.permitted.amount,
      nonce: message.nonce,
    },
    cause,
  );
}

/**
 * One simulation of the proxy's `settle` as `sender` would send it, in which the proxy checks the witness and
 * Permit2 the signature (contract wallets included), the nonce, the owner's balance and allowance: one RPC call, and
 * the reads that say why only when it fails. Returns the gas it needs, for the relay soon after. Throws
 * PaymentRefusedError when it would revert.
 */
export async function simulateProxySettle(
  client: PublicClient,
  params: SignedPermit & { sender: Address },
): Promise<bigint> {
  try {
    return await client.estimateContractGas({
      account: params.sender,
      address: X402_EXACT_PERMIT2_PROXY,
      ...settleCall(params.typedData, params.owner, params.signature),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainSettleRefusal(client, params, error);
  }
}

/**
 * Journals and sends the proxy's `settle` from the collector through the relayer, only when the permit pays
 * `recipient`; the network's follower sees it land. With `gas` (a simulation's measure moments ago) the relayer sends it without asking again; without, its gas
 * estimate is the simulation, and a call that would revert is refused with its reason, nothing recorded.
 */
export async function relayProxySettle(
  client: PublicClient,
  relayer: Relayer,
  params: SignedPermit & { chain: string; recipient: Address; purpose: string; paymentId: string; gas?: bigint },
): Promise<{ id: string; hash: Hex }> {
  const { to } = params.typedData.message.witness;
  if (!isAddressEqual(to, params.recipient))
    throw new PaymentRefusedError('recipient_mismatch', `the permit pays ${to}, not ${params.recipient}`);
  try {
    return await relayer.submit({
      chain: params.chain,
      to: X402_EXACT_PERMIT2_PROXY,
      data: encodeFunctionData(settleCall(params.typedData, params.owner, params.signature)),
      purpose: params.purpose,
      paymentId: params.paymentId,
      ...(params.gas ? { gas: params.gas } : {}),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainSettleRefusal(client, params, error);
  }
}
