import { type Address, getAddress, type Hex, isAddress, isAddressEqual } from 'viem';
import { PERMIT2_ADDRESS } from '../chains/evm/abis.ts';
import { evmChainId } from '../chains/evm/clients.ts';
import type { AppContext } from '../context.ts';
import { readingChain } from '../gateway/chainFailures.ts';
import type { ChainServices } from '../gateway/chainServices.ts';
import type { X402Permit2Terms } from '../gateway/methods/terms.ts';
import { SIGNATURE } from '../gateway/walletResultFormats.ts';
import {
  dateOfUnixSeconds,
  isUint256Text,
  MIN_REMAINING_VALIDITY_S,
  refusedOnChainAs,
  textOf,
  unixSeconds,
} from './exactEvmPayment.ts';
import { permitWitnessTypedData, simulateProxySettle, X402_EXACT_PERMIT2_PROXY } from './permitWitnessTransfer.ts';
import { x402PayTo } from './x402PayTo.ts';
import { type CheckedX402Payment, checkRequirements, fiatOf, refuse, resourceUrlOf } from './x402Requirements.ts';
import type { FacilitatorRequest } from './x402Schemas.ts';

/** Whether the payload is a Permit2 one, as x402's facilitator tells them apart: by its `permit2Authorization`. */
export function isPermit2Payload(request: FacilitatorRequest): boolean {
  return 'permit2Authorization' in request.paymentPayload.payload;
}

/** An object field of the payload, or an empty one, which no check accepts. */
const objectOf = (field: unknown): Record<string, unknown> =>
  typeof field === 'object' && field !== null ? (field as Record<string, unknown>) : {};

/**
 * The payload's `{signature, permit2Authorization}` as the permit's stored terms, each field in the form x402's EVM
 * client writes it (addresses checksummed, integers as decimal text).
 */
function parsedPermit(payload: Record<string, unknown>, chainId: number): { signature: Hex; terms: X402Permit2Terms } {
  const { signature, permit2Authorization } = payload;
  if (typeof signature !== 'string' || !SIGNATURE.test(signature))
    refuse('invalidPayload', 'the payload is not a Permit2 authorisation: {signature, permit2Authorization}');
  const { from, permitted, spender, nonce, deadline, witness } = objectOf(permit2Authorization);
  const { token, amount } = objectOf(permitted);
  const { to, validAfter } = objectOf(witness);
  if (![from, token, spender, to].every((field) => isAddress(textOf(field))))
    refuse('invalidPayload', 'permit2Authorization.from, permitted.token, spender and witness.to must be addresses');
  if (![amount, nonce, deadline, validAfter].every(isUint256Text))
    refuse(
      'invalidPayload',
      'permit2Authorization.permitted.amount, nonce, deadline and witness.validAfter must be unsigned integers as decimal text',
    );
  const address = (field: unknown) => getAddress(textOf(field));
  const uint = (field: unknown) => BigInt(textOf(field)).toString();
  return {
    signature: signature as Hex,
    terms: {
      kind: 'x402_permit2',
      chainId,
      owner: address(from),
      permitted: { token: address(token), amount: uint(amount) },
      spender: address(spender),
      nonce: uint(nonce),
      deadline: uint(deadline),
      witness: { to: address(to), validAfter: uint(validAfter) },
    },
  };
}

/**
 * Checks an x402 `exact` payment on EVM by Permit2 (`extra.assetTransferMethod: "permit2"`) for the merchant as far as
 * it can be without the database, as x402's own facilitator does and in its terms: the requirements
 * (`checkRequirements`; any ERC-20 the service takes on the network, since Permit2 moves any), the spender (x402's
 * proxy, the only one whose transfer honours the witness), the recipient (the merchant's own address: a permit
 * signed for another merchant is refused as a recipient mismatch), the deadline and `validAfter` at `now`, exactly the
 * requirements' amount of their asset, and the owner's signature. Its `checkOnChain` simulates the proxy's `settle`,
 * in which Permit2 checks the nonce, the balance and the allowance. Throws X402Refusal with x402's reason.
 */
export async function checkExactPermit2Payment(
  ctx: AppContext,
  services: ChainServices,
  request: FacilitatorRequest,
  merchantId: string,
): Promise<CheckedX402Payment> {
  const collector = services.evm.collector;
  const payTo = x402PayTo(services, merchantId, 'eip155') as Address;
  const { network, token, amount } = checkRequirements(ctx, request, {
    namespace: 'eip155',
    payTo,
    payToMismatch: 'permit2RecipientMismatch',
    isToken: (candidate, asset) =>
      (candidate.method === 'eip3009' || candidate.method === 'eip2612' || candidate.method === 'permit2') &&
      isAddress(asset) &&
      isAddressEqual(candidate.address as Address, asset),
  });
  const { signature, terms } = parsedPermit(request.paymentPayload.payload, evmChainId(network));
  if (!isAddressEqual(terms.spender, X402_EXACT_PERMIT2_PROXY))
    refuse(
      'permit2InvalidSpender',
      `the permit lets ${terms.spender} spend, not x402's proxy ${X402_EXACT_PERMIT2_PROXY}`,
    );
  if (!isAddressEqual(terms.witness.to, payTo))
    refuse('permit2RecipientMismatch', `the permit pays ${terms.witness.to}, not the merchant's payTo ${payTo}`);
  const nowSeconds = unixSeconds(ctx.clock.now());
  const deadline = BigInt(terms.deadline);
  if (deadline < nowSeconds + MIN_REMAINING_VALIDITY_S)
    refuse('permit2DeadlineExpired', `the permit is valid only until unix ${deadline}`);
  if (BigInt(terms.witness.validAfter) > nowSeconds)
    refuse('permit2NotYetValid', `the permit is valid only after unix ${terms.witness.validAfter}`);
  if (BigInt(terms.permitted.amount) !== amount)
    refuse('permit2AmountMismatch', `the permit is for ${terms.permitted.amount}, the requirements ask ${amount}`);
  if (!isAddressEqual(terms.permitted.token, token.address as Address))
    refuse('permit2TokenMismatch', `the permit is for ${terms.permitted.token}, the requirements ask ${token.address}`);

  const client = services.evm.clients.for(network);
  const typedData = permitWitnessTypedData(terms);
  const owner = terms.owner;
  // Asked of the node, so a contract wallet's signature (ERC-1271) is checked as Permit2 will check it.
  const signed = await readingChain(network.caip2, () =>
    client.verifyTypedData({ ...typedData, address: owner, signature }),
  );
  if (!signed) refuse('permit2InvalidSignature', `the signature is not ${owner}'s signature of this permit`);
  return {
    network,
    token,
    payer: owner,
    merchantAddress: payTo.toLowerCase(),
    // Permit2 spends each nonce of an owner once on the chain, whatever the token.
    identity: {
      asset: `${network.caip2}:${PERMIT2_ADDRESS.toLowerCase()}`,
      payer: owner.toLowerCase(),
      nonce: terms.nonce,
    },
    signature,
    amount,
    fiat: fiatOf(token, amount),
    resourceUrl: resourceUrlOf(request),
    validUntil: dateOfUnixSeconds(deadline),
    terms,
    // One simulation of the proxy's settle as the collector would send it; its gas is what the relay then sends with.
    checkOnChain: async () => {
      const gas = await refusedOnChainAs(network, 'x402_permit2', () =>
        simulateProxySettle(client, { typedData, owner, signature, sender: collector }),
      );
      // The collector pays the relay's gas out of the operator's funding: a settle it cannot cover is refused (503).
      await services.evm.relayer.requireNetworkFeeFunded(network.caip2, gas);
      return { gas };
    },
  };
}
