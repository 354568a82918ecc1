import type { NetworkInfo, TokenInfo } from '../chains/registry.ts';
import { eip2612Method } from '../gateway/methods/eip2612.ts';
import { eip3009Method } from '../gateway/methods/eip3009.ts';
import { nativeMethod } from '../gateway/methods/native.ts';
import type { PaymentMethodHandler, TransferPurpose } from '../gateway/methods/paymentMethod.ts';
import { permit2Method } from '../gateway/methods/permit2.ts';
import { solanaSplMethod } from '../gateway/methods/solanaSpl.ts';
import type { OptionTerms } from '../gateway/methods/terms.ts';
import { x402Eip3009Method } from '../x402/x402Eip3009Method.ts';
import { x402Permit2Method } from '../x402/x402Permit2Method.ts';
import { x402SvmMethod } from '../x402/x402SvmMethod.ts';

/**
 * Every payment method, by the kind of its terms; a kind without its method does not compile. The registry sits above
 * the gateway's methods and x402's, which know nothing of each other's.
 */
const paymentMethods: { [K in OptionTerms['kind']]: PaymentMethodHandler<Extract<OptionTerms, { kind: K }>> } = {
  eip3009: eip3009Method,
  eip2612: eip2612Method,
  permit2: permit2Method,
  native: nativeMethod,
  spl: solanaSplMethod,
  x402_eip3009: x402Eip3009Method,
  x402_permit2: x402Permit2Method,
  x402_svm: x402SvmMethod,
};

/** The methods the gateway offers a buyer; an x402 payment arrives signed, through the x402 facilitator. */
const offeredMethods = [eip3009Method, eip2612Method, permit2Method, nativeMethod, solanaSplMethod];

/** The method that made these terms. */
export function paymentMethodOf(terms: OptionTerms): PaymentMethodHandler<OptionTerms> {
  // Each method is registered under its own kind, so it only ever gets the options whose terms it made.
  return paymentMethods[terms.kind] as PaymentMethodHandler<OptionTerms>;
}

/** The method that pays with the token on the network, if the gateway offers the token there. */
export function paymentMethodFor(
  network: NetworkInfo,
  token: TokenInfo,
): PaymentMethodHandler<OptionTerms> | undefined {
  return offeredMethods.find(
    (method) => method.namespace === network.namespace && method.tokenMethod === token.method,
  ) as PaymentMethodHandler<OptionTerms> | undefined;
}

/** What each journal purpose or watch kind of the methods' transfers does to its payment when it ends. */
export const transferPurposes: ReadonlyMap<string, TransferPurpose> = new Map(
  Object.values(paymentMethods).flatMap((method) => Object.entries(method.transfers)),
);
