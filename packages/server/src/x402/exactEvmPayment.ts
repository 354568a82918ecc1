import { type Address, getAddress, type Hex, isAddress, isAddressEqual } from 'viem';
import {
  authorizationTypedData,
  eip712DomainOf,
  simulateAuthorization,
  storedAuthorizationOf,
} from '../chains/evm/eip3009.ts';
import { PaymentRefusedError } from '../chains/evm/errors.ts';
import type { NetworkInfo } from '../chains/registry.ts';
import type { AppContext } from '../context.ts';
import { readingChain } from '../gateway/chainFailures.ts';
import type { ChainServices } from '../gateway/chainServices.ts';
import { SIGNATURE } from '../gateway/walletResultFormats.ts';
import { reasonOfFailure, X402Refusal } from './reasons.ts';
import { x402PayTo } from './x402PayTo.ts';
import { type CheckedX402Payment, checkRequirements, fiatOf, refuse, resourceUrlOf } from './x402Requirements.ts';
import type { FacilitatorRequest } from './x402Schemas.ts';

/**
 * The least time an authorisation or permit must still be valid for when it is checked, as x402's own facilitator
 * asks (6 s): its transfer must be mined before it expires.
 */
export const MIN_REMAINING_VALIDITY_S = 6n;

const UINT = /^(0|[1-9][0-9]{0,77})$/;
const MAX_UINT256 = 2n ** 256n - 1n;
const NONCE = /^0x[0-9a-fA-F]{64}$/;

/** A payload's field as text; anything else as empty text, which no check accepts. */
export const textOf = (field: unknown): string => (typeof field === 'string' ? field : '');

/** Whether the field is a uint256 as decimal text, as x402's EVM client writes integers. */
export const isUint256Text = (field: unknown): boolean =>
  UINT.test(textOf(field)) && BigInt(textOf(field)) <= MAX_UINT256;

/** The time as the unix seconds chains compare validity windows with. */
export const unixSeconds = (date: Date): bigint => BigInt(Math.floor(date.getTime() / 1000));

/** Unix seconds as a date; a validity far ahead is no longer than a date can hold. */
export const dateOfUnixSeconds = (seconds: bigint): Date =>
  new Date(Number(seconds < 10n ** 12n ? seconds : 10n ** 12n) * 1000);

/** The payer an EVM payload names, if it names one, for the answer's `payer`: the authoriser or the permit's owner. */
export function evmPayerOf(request: FacilitatorRequest): string | undefined {
  const { authorization, permit2Authorization } = request.paymentPayload.payload as {
    authorization?: { from?: unknown };
    permit2Authorization?: { from?: unknown };
  };
  const from = authorization?.from ?? permit2Authorization?.from;
  return typeof from === 'string' && isAddress(from) ? getAddress(from) : undefined;
}

/**
 * Runs a payment's check against the chain, the chain layer's refusal of it as the X402Refusal of the payload's
 * kind, and a node that cannot be read as `readingChain` reports it.
 */
export async function refusedOnChainAs<T>(
  network: NetworkInfo,
  kind: 'x402_eip3009' | 'x402_permit2',
  check: () => Promise<T>,
): Promise<T> {
  try {
    return await readingChain(network.caip2, check);
  } catch (error) {
    if (error instanceof PaymentRefusedError) throw new X402Refusal(reasonOfFailure(error.code, kind), error.message);
    throw error;
  }
}

/** The payload's `{signature, authorization}`, each field in the form x402's EVM client writes it. */
function parsedAuthorization(payload: Record<string, unknown>) {
  const { signature, authorization } = payload as { signature?: unknown; authorization?: Record<string, unknown> };
  if (
    typeof signature !== 'string' ||
    !SIGNATURE.test(signature) ||
    typeof authorization !== 'object' ||
    !authorization
  )
    refuse('invalidPayload', 'the payload is not an EIP-3009 authorisation: {signature, authorization}');
  const { from, to, value, validAfter, validBefore, nonce } = authorization;
  if (!isAddress(textOf(from)) || !isAddress(textOf(to)))
    refuse('invalidPayload', 'authorization.from and authorization.to must be addresses');
  if (![value, validAfter, validBefore].every(isUint256Text))
    refuse(
      'invalidPayload',
      'authorization.value, validAfter and validBefore must be unsigned integers as decimal text',
    );
  if (!NONCE.test(textOf(nonce))) refuse('invalidPayload', 'authorization.nonce must be 32 bytes of 0x-prefixed hex');
  return {
    signature: signature as Hex,
    message: {
      from: getAddress(textOf(from)),
      to: getAddress(textOf(to)),
      value: BigInt(textOf(value)),
      validAfter: BigInt(textOf(validAfter)),
      validBefore: BigInt(textOf(validBefore)),
      nonce: textOf(nonce).toLowerCase() as Hex,
    },
  };
}

/**
 * Checks an x402 `exact` payment on EVM (an EIP-3009 `TransferWithAuthorization`) for the merchant as far as it can be
 * without the database, as x402's own facilitator does and in its terms: the requirements (`checkRequirements`), the
 * token's EIP-712 domain, the recipient (the merchant's own address: a payload signed for another merchant is
 * refused as a recipient mismatch), the value (exactly the requirements' amount) and the validity window at `now`.
 * Throws X402Refusal with x402's reason; its `checkOnChain` simulates the transfer.
 */
export async function checkExactEvmPayment(
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
    payToMismatch: 'recipientMismatch',
    isToken: (candidate, asset) =>
      candidate.method === 'eip3009' && isAddress(asset) && isAddressEqual(candidate.address as Address, asset),
  });
  const { name, version } = request.paymentRequirements.extra ?? {};
  if (typeof name !== 'string' || typeof version !== 'string')
    refuse('missingEip712Domain', "extra.name and extra.version must give the token's EIP-712 domain");
  const domain = await readingChain(network.caip2, () =>
    services.evm.eip3009Token(services.evm.clients.for(network), token),
  );
  if (name !== domain.name) refuse('tokenNameMismatch', `the token's EIP-712 name is "${domain.name}"`);
  if (version !== domain.version) refuse('tokenVersionMismatch', `the token's EIP-712 version is "${domain.version}"`);

  const { signature, message } = parsedAuthorization(request.paymentPayload.payload);
  if (!isAddressEqual(message.to, payTo))
    refuse('recipientMismatch', `the authorisation pays ${message.to}, not the merchant's payTo ${payTo}`);
  if (message.value !== amount)
    refuse('valueMismatch', `the authorisation is for ${message.value}, the requirements ask ${amount}`);
  const nowSeconds = unixSeconds(ctx.clock.now());
  if (message.validBefore < nowSeconds + MIN_REMAINING_VALIDITY_S)
    refuse('validBefore', `the authorisation is valid only until unix ${message.validBefore}`);
  if (message.validAfter > nowSeconds)
    refuse('validAfter', `the authorisation is valid only after unix ${message.validAfter}`);

  const typedData = authorizationTypedData(eip712DomainOf(domain), 'TransferWithAuthorization', message);
  return {
    network,
    token,
    payer: message.from,
    merchantAddress: payTo.toLowerCase(),
    identity: { asset: token.caip19, payer: message.from.toLowerCase(), nonce: message.nonce },
    signature,
    amount,
    fiat: fiatOf(token, amount),
    resourceUrl: resourceUrlOf(request),
    validUntil: dateOfUnixSeconds(message.validBefore),
    terms: { kind: 'x402_eip3009', authorization: storedAuthorizationOf(typedData) },
    // One simulation of the transfer as the collector would send it: the token checks the signature (contract
    // wallets too), the nonce and the balance; its gas is what the relay then sends with.
    checkOnChain: async () => {
      const gas = await refusedOnChainAs(network, 'x402_eip3009', () =>
        simulateAuthorization(services.evm.clients.for(network), {
          typedData,
          signature,
          sender: collector,
        }),
      );
      // The collector pays the relay's gas out of the operator's funding: a settle it cannot cover is refused (503).
      await services.evm.relayer.requireNetworkFeeFunded(network.caip2, gas);
      return { gas };
    },
  };
}
