import {
  type Address,
  BaseError,
  encodeFunctionData,
  hashDomain,
  hashTypedData,
  type Hex,
  isAddressEqual,
  parseSignature,
  type PublicClient,
  recoverTypedDataAddress,
} from 'viem';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { eip2612Abi, erc20Abi } from './abis.ts';
import { PaymentRefusedError } from './errors.ts';
import { permitPullerAbi } from './permitPuller/contracts.ts';
import { permitPullerAddress } from './permitPullerDeployment.ts';
import type { Relayer } from './relayer.ts';
import { isExecutionRevert, revertReason } from './simulation.ts';

export const PERMIT_PULL_PURPOSE = 'eip2612_pull';

/** The EIP-712 domain of an EIP-2612 token, as the token contract itself reports it. */
export type Eip2612Domain = { name: string; version: string; chainId: number; verifyingContract: Address };

export const permitTypes = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

// A type alias rather than an interface: viem's typed-data parameters need an implicit index signature.
export type Eip2612Permit = { owner: Address; spender: Address; value: bigint; nonce: bigint; deadline: bigint };

export interface PermitTypedData {
  domain: Eip2612Domain;
  types: typeof permitTypes;
  primaryType: 'Permit';
  message: Eip2612Permit;
}

export function permitTypedData(domain: Eip2612Domain, message: Eip2612Permit): PermitTypedData {
  return { domain, types: permitTypes, primaryType: 'Permit', message };
}

/** A permit kept as JSON: its integers as decimal strings. */
export interface StoredEip2612Permit {
  domain: Eip2612Domain;
  message: { owner: Address; spender: Address; value: string; nonce: string; deadline: string };
}

export function storedPermitOf(typedData: PermitTypedData): StoredEip2612Permit {
  const { owner, spender, value, nonce, deadline } = typedData.message;
  return {
    domain: typedData.domain,
    message: { owner, spender, value: value.toString(), nonce: nonce.toString(), deadline: deadline.toString() },
  };
}

export function storedPermitTypedData(stored: StoredEip2612Permit): PermitTypedData {
  const { owner, spender, value, nonce, deadline } = stored.message;
  return permitTypedData(stored.domain, {
    owner,
    spender,
    value: BigInt(value),
    nonce: BigInt(nonce),
    deadline: BigInt(deadline),
  });
}

/**
 * Reads the token's EIP-712 domain: from EIP-5267's `eip712Domain()` where the token has it (OpenZeppelin's since
 * 4.9), else its `name()` with its `version()` or EIP-2612's customary "1". Either way it must hash to the token's
 * own `DOMAIN_SEPARATOR()`, so a permit signed in it is one the token accepts.
 */
export async function readEip2612Domain(client: PublicClient, address: Address): Promise<Eip2612Domain> {
  const chainId = client.chain?.id;
  if (chainId === undefined) throw new Error('the client has no chain');
  const [reported, separator] = await Promise.all([
    client.getEip712Domain({ address }).catch(() => null),
    client.readContract({ address, abi: eip2612Abi, functionName: 'DOMAIN_SEPARATOR' }),
  ]);
  let domain: Eip2612Domain;
  if (reported?.domain.name !== undefined && reported.domain.version !== undefined)
    domain = { name: reported.domain.name, version: reported.domain.version, chainId, verifyingContract: address };
  else {
    const [name, version] = await Promise.all([
      client.readContract({ address, abi: erc20Abi, functionName: 'name' }),
      client.readContract({ address, abi: eip2612Abi, functionName: 'version' }).catch(() => '1'),
    ]);
    domain = { name, version, chainId, verifyingContract: address };
  }
  const hashed = hashDomain({
    domain: { ...domain, chainId: BigInt(chainId) },
    types: { EIP712Domain: DOMAIN_FIELDS },
  });
  if (hashed !== separator) throw new Error(`the EIP-712 domain of ${address} does not hash to its DOMAIN_SEPARATOR()`);
  return domain;
}

const DOMAIN_FIELDS = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

/** The owner's next permit nonce: a permit signed with it is the one the token takes next. */
export function readPermitNonce(client: PublicClient, token: Address, owner: Address): Promise<bigint> {
  return client.readContract({ address: token, abi: eip2612Abi, functionName: 'nonces', args: [owner] });
}

/** What the service quoted: the permit must match it exactly. */
export interface ExpectedPermit {
  token: Address;
  owner: Address;
  value: bigint;
  /** The collector, whose puller the permit must name as its spender. */
  collector: Address;
}

/** A signed permit with what it must match. */
export interface SignedPermit {
  typedData: PermitTypedData;
  signature: Hex;
  expected: ExpectedPermit;
  clock: Clock;
}

/**
 * Checks what can be checked without the chain: the permit against the quote and its deadline, and that the signature
 * is the owner's. The last matters beyond the token's own check: the puller lets a failed `permit` through (one
 * submitted first by someone else), so a signature that is not the owner's must never reach it.
 */
async function checkPermit(client: PublicClient, params: SignedPermit): Promise<{ v: number; r: Hex; s: Hex }> {
  const { typedData, signature, expected } = params;
  const { domain, message } = typedData;
  const chainId = client.chain?.id;
  if (chainId === undefined) throw new Error('the client has no chain');
  if (!isAddressEqual(domain.verifyingContract, expected.token) || domain.chainId !== chainId)
    throw new PaymentRefusedError(
      'token_mismatch',
      `the permit is for token ${domain.verifyingContract} on chain ${domain.chainId}, not the quoted ${expected.token} on chain ${chainId}`,
    );
  const puller = permitPullerAddress(expected.collector);
  if (!isAddressEqual(message.spender, puller))
    throw new PaymentRefusedError(
      'recipient_mismatch',
      `the permit lets ${message.spender} spend, not the collector's permit puller ${puller}`,
    );
  if (message.value !== expected.value)
    throw new PaymentRefusedError(
      'amount_mismatch',
      `the permit is for ${message.value} minor units, the quote is ${expected.value}`,
    );
  if (!isAddressEqual(message.owner, expected.owner))
    throw new PaymentRefusedError(
      'payer_mismatch',
      `the permit is from ${message.owner}, the payment expects ${expected.owner}`,
    );
  if (message.deadline <= BigInt(Math.floor(params.clock.now().getTime() / 1000)))
    throw new PaymentRefusedError(
      'authorization_expired',
      `the permit expired at ${new Date(Number(message.deadline) * 1000).toISOString()}`,
    );
  let parts: ReturnType<typeof parseSignature>;
  let signer: Address;
  try {
    parts = parseSignature(signature);
    signer = await recoverTypedDataAddress({ ...typedData, signature });
  } catch (error) {
    // Reading and recovering a signature is local arithmetic: whatever fails there is the signature's fault.
    const reason = error instanceof BaseError ? error.shortMessage : (error as Error).message;
    throw new PaymentRefusedError('invalid_signature', `the signature cannot be read: ${reason}`);
  }
  // EIP-2612 takes an owner's ECDSA signature only (no ERC-1271 contract wallets).
  if (!isAddressEqual(signer, message.owner))
    throw new PaymentRefusedError(
      'invalid_signature',
      `the signature is not ${message.owner}'s signature of this permit`,
    );
  return { v: Number(parts.v ?? BigInt(27 + (parts.yParity ?? 0))), r: parts.r, s: parts.s };
}

function pullCall(typedData: PermitTypedData, parts: { v: number; r: Hex; s: Hex }) {
  const { message, domain } = typedData;
  return {
    abi: permitPullerAbi,
    functionName: 'pull',
    args: [domain.verifyingContract, message.owner, message.value, message.deadline, parts.v, parts.r, parts.s],
  } as const;
}

/**
 * What keeps the puller from pulling the permit, read from the token: its nonce spent without leaving the allowance
 * it gives (used for something else; spent by whoever submitted it first leaves the allowance, which still pays), or
 * too small a balance. Null when nothing read stands in the way.
 */
async function pullBlocker(client: PublicClient, typedData: PermitTypedData): Promise<PaymentRefusedError | null> {
  const { owner, spender, value, nonce } = typedData.message;
  const token = typedData.domain.verifyingContract;
  const [next, balance, allowance] = await Promise.all([
    readPermitNonce(client, token, owner),
    client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
    client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] }),
  ]);
  if (next !== nonce && allowance < value)
    return new PaymentRefusedError(
      'nonce_already_used',
      `${owner}'s permit nonce ${nonce} is not the next one (${next}), and no allowance for the payment is left`,
    );
  if (balance < value)
    return new PaymentRefusedError(
      'insufficient_balance',
      `${owner} holds ${balance} minor units, the payment needs ${value}`,
    );
  return null;
}

/** Why the puller refused a pull, worked out only once it did: what the token says, else the contract's own words. */
async function explainPullRefusal(
  client: PublicClient,
  typedData: PermitTypedData,
  cause: unknown,
): Promise<PaymentRefusedError> {
  return (
    (await pullBlocker(client, typedData)) ??
    new PaymentRefusedError('simulation_failed', `the pull would fail on chain: ${revertReason(cause)}`)
  );
}

/**
 * Checks a signed permit against the quote and the chain: its terms and signature, then, where the collector's
 * puller is deployed, one simulation of its `pull` as the collector (the token checks the permit, the balance and
 * the allowance), returning the gas it needs. Where the puller is not deployed yet, reads stand in for the
 * simulation (the nonce unspent, or spent by someone who set the allowance; the balance) and no gas is returned:
 * the submission measures it once the puller is there.
 */
export async function verifyPermit(
  client: PublicClient,
  params: SignedPermit & { pullerDeployed: boolean },
): Promise<bigint | undefined> {
  const parts = await checkPermit(client, params);
  const { typedData, expected } = params;
  if (params.pullerDeployed) {
    try {
      return await client.estimateContractGas({
        account: expected.collector,
        address: typedData.message.spender,
        ...pullCall(typedData, parts),
      });
    } catch (error) {
      if (!isExecutionRevert(error)) throw error;
      throw await explainPullRefusal(client, typedData, error);
    }
  }
  const blocker = await pullBlocker(client, typedData);
  if (blocker) throw blocker;
  return undefined;
}

/**
 * Checks the permit and journals the puller's `pull` of it from the collector through the relayer (the puller is
 * deployed); the tokens go to the collector. With `gas` (what the confirm's simulation measured) the relayer sends it
 * without asking again; without, its estimate is the simulation, and a pull that would revert is refused with its
 * reason, nothing recorded. The network's follower sees it land.
 */
export async function relayPermitPull(
  client: PublicClient,
  relayer: Relayer,
  params: SignedPermit & { chain: string; paymentId: string; gas?: bigint },
): Promise<{ id: string; hash: Hex }> {
  if (!isAddressEqual(params.expected.collector, relayer.address))
    throw new Error('the expected collector is not the relayer’s account');
  const parts = await checkPermit(client, params);
  try {
    return await relayer.submit({
      chain: params.chain,
      to: params.typedData.message.spender,
      data: encodeFunctionData(pullCall(params.typedData, parts)),
      purpose: PERMIT_PULL_PURPOSE,
      paymentId: params.paymentId,
      ...(params.gas ? { gas: params.gas } : {}),
    });
  } catch (error) {
    if (!isExecutionRevert(error)) throw error;
    throw await explainPullRefusal(client, params.typedData, error);
  }
}

/**
 * Claims a signed permit for one payment, in the confirm's transaction. A permit is bound to no payment (EIP-2612 has
 * no field for one), so two payments quoting the same owner, amount, nonce and deadline would take the same
 * signature: the first claim of its EIP-712 hash wins, and the signature pays no other payment.
 */
export async function claimPermit(db: Db, chain: string, typedData: PermitTypedData, paymentId: string): Promise<void> {
  const digest = hashTypedData(typedData).toLowerCase();
  await db
    .insertInto('eip2612_permits')
    .values({ chain, digest, payment_id: paymentId })
    .onConflict((conflict) => conflict.columns(['chain', 'digest']).doNothing())
    .execute();
  const claim = await db
    .selectFrom('eip2612_permits')
    .select('payment_id')
    .where('chain', '=', chain)
    .where('digest', '=', digest)
    .executeTakeFirstOrThrow();
  if (claim.payment_id !== paymentId)
    throw new PaymentRefusedError('permit_already_used', 'this signed permit was already accepted for another payment');
}
