import { isValidAddress, type Namespace, sameAddress } from '../chains/caip.ts';
import type { NetworkInfo, TokenInfo } from '../chains/registry.ts';
import type { AppContext } from '../context.ts';
import { paymentNeedsBuyerData } from '../gateway/dataCollection/buyerData.ts';
import type { ConfirmationCheck } from '../gateway/methods/paymentMethod.ts';
import type { X402Terms } from '../gateway/methods/terms.ts';
import { formatMinorUnits } from '@paygate/client/money';
import { fiatCurrency } from '../payments/currencies.ts';
import type { MerchantRow, PaymentRow } from '../payments/paymentResource.ts';
import { feesForCurrency, minimumAmountUnder } from '../settlement/feeSchedules.ts';
import { fiatMinorUnitsOf } from './fiatAmount.ts';
import { X402_REASONS, X402Refusal } from './reasons.ts';
import type { FacilitatorRequest } from './x402Schemas.ts';

/** The x402 protocol version these endpoints speak. */
export const X402_VERSION = 2;

const AMOUNT = /^[1-9][0-9]{0,29}$/;
/** The largest fiat amount a payment holds (D8: at most 18 digits of minor units). */
const MAX_FIAT_MINOR = 10n ** 18n - 1n;

export function refuse(reason: keyof typeof X402_REASONS, message: string): never {
  throw new X402Refusal(X402_REASONS[reason], message);
}

/** An x402 `exact` payment whose terms hold: what it pays, from whom, as what fiat amount, and how it is sent. */
export interface CheckedX402Payment {
  network: NetworkInfo;
  token: TokenInfo;
  /** The account that pays, as its chain writes it. */
  payer: string;
  /** The merchant's own address the payload pays: on EVM networks lower case, on Solana the merchant's owner. */
  merchantAddress: string;
  /**
   * What the payload is known by on chain, whoever sends it: the token, the payer and the EIP-3009 nonce (lower
   * case); Permit2 on the network (`<caip2>:<permit2>`), the owner and the Permit2 nonce (decimal), since Permit2
   * spends an owner's nonce once whatever the token; or on Solana the payer's signature of the transaction. One
   * payment per identity.
   */
  identity: { asset: string; payer: string; nonce: string };
  /** The payer's signature: only the same payload may ask for its payment's outcome again. */
  signature: string;
  /** Token minor units: exactly the requirements' amount. */
  amount: bigint;
  fiat: { currency: string; value: bigint };
  resourceUrl: string | null;
  /** Until when the payload can pay. */
  validUntil: Date;
  /** The payment's option terms: what its submission sends. */
  terms: X402Terms;
  /** One check against the chain (a simulation): what the submission can reuse. Throws X402Refusal. */
  checkOnChain(): Promise<ConfirmationCheck>;
}

/** The requirements' network and token, if this service takes x402 payments in it on `namespace`. */
function acceptedToken(
  ctx: AppContext,
  request: FacilitatorRequest,
  namespace: Namespace,
  isToken: (token: TokenInfo, asset: string) => boolean,
): { network: NetworkInfo; token: TokenInfo } {
  const { network: caip2, asset } = request.paymentRequirements;
  const network = ctx.chains.network(caip2);
  if (network?.namespace !== namespace || !network.rpcUrl)
    refuse('invalidNetwork', `this service takes no x402 payments on ${caip2.slice(0, 128)}`);
  const token = network.tokens.find((candidate) => isToken(candidate, asset));
  if (!token?.peggedTo || !fiatCurrency(token.peggedTo))
    refuse(
      'invalidRequirements',
      `${asset.slice(0, 128)} is not a stablecoin this service takes by x402 on ${caip2}; see GET /v1/x402/supported`,
    );
  return { network, token };
}

/**
 * What every `exact` payment's requirements must hold, on any network, as x402 names the failures: the version, the
 * scheme, the payload accepting the same scheme and network, a network and a stablecoin of it this service takes, a
 * positive amount, and `payTo` the merchant's on that network (`x402PayTo`), else `payToMismatch`.
 */
export function checkRequirements(
  ctx: AppContext,
  request: FacilitatorRequest,
  chain: {
    namespace: Namespace;
    payTo: string;
    payToMismatch: keyof typeof X402_REASONS;
    isToken: (token: TokenInfo, asset: string) => boolean;
  },
): { network: NetworkInfo; token: TokenInfo; amount: bigint } {
  const { paymentPayload: payload, paymentRequirements: requirements } = request;
  if (request.x402Version !== X402_VERSION || payload.x402Version !== X402_VERSION)
    refuse('invalidX402Version', `this facilitator speaks x402 version ${X402_VERSION}`);
  if (requirements.scheme !== 'exact')
    refuse('unsupportedScheme', `this facilitator settles the exact scheme, not ${requirements.scheme.slice(0, 64)}`);
  const solana = chain.namespace === 'solana';
  if (payload.accepted && payload.accepted.scheme !== requirements.scheme)
    refuse(
      solana ? 'svmSchemeMismatch' : 'schemeMismatch',
      'the payload accepted another scheme than the requirements',
    );
  if (payload.accepted && payload.accepted.network !== requirements.network)
    refuse(
      solana ? 'svmNetworkMismatch' : 'networkMismatch',
      'the payload accepted another network than the requirements',
    );
  const { network, token } = acceptedToken(ctx, request, chain.namespace, chain.isToken);
  if (!requirements.amount || !AMOUNT.test(requirements.amount))
    refuse('invalidRequirements', 'amount must be a positive whole number of token minor units, at most 30 digits');
  if (!isValidAddress(chain.namespace, requirements.payTo))
    refuse('invalidRequirements', 'payTo must be an address of the network');
  if (!sameAddress(chain.namespace, requirements.payTo, chain.payTo))
    refuse(chain.payToMismatch, `payTo must be the merchant's ${chain.payTo}; see GET /v1/x402/supported`);
  return { network, token, amount: BigInt(requirements.amount) };
}

/** The fiat amount of `amount` of the stablecoin, in the currency it is pegged to (`fiatMinorUnitsOf`). */
export function fiatOf(token: TokenInfo, amount: bigint): { currency: string; value: bigint } {
  const currency = token.peggedTo as string;
  const value = fiatMinorUnitsOf(amount, token.decimals, fiatCurrency(currency)?.decimals ?? 2);
  if (value > MAX_FIAT_MINOR) refuse('invalidRequirements', 'the amount is larger than a payment can be');
  return { currency, value };
}

/** What the payload names as the resource it pays for. */
export function resourceUrlOf(request: FacilitatorRequest): string | null {
  return request.paymentPayload.resource?.url?.slice(0, 2048) ?? null;
}

/**
 * What the merchant's payments must meet, as any payment must: the amount leaves the merchant something after the
 * partner's fees (D8), and it is not above the merchant's buyer-data threshold (D14), whose details an agent paying
 * by x402 has no form to give.
 */
export async function requireTakenByMerchant(
  ctx: AppContext,
  merchant: Pick<MerchantRow, 'id' | 'partner_id'>,
  payment: Pick<CheckedX402Payment, 'fiat'>,
): Promise<void> {
  const { currency, value } = payment.fiat;
  const decimals = fiatCurrency(currency)?.decimals ?? 2;
  const minimum = minimumAmountUnder(await feesForCurrency(ctx.db, merchant.partner_id, currency));
  if (value < minimum)
    refuse(
      'invalidRequirements',
      `the amount is below the minimum of ${formatMinorUnits(minimum, decimals)} ${currency} that covers the fees`,
    );
  const asPayment = { merchant_id: merchant.id, fiat_currency: currency, fiat_value: value.toString() } as PaymentRow;
  if (await paymentNeedsBuyerData(ctx, asPayment))
    refuse(
      'invalidRequirements',
      "the amount is above the merchant's buyer-data threshold, and an x402 payment cannot give the buyer's details",
    );
}
