import type { AppContext } from '../context.ts';
import type { ChainServices } from '../gateway/chainServices.ts';
import { checkExactEvmPayment, evmPayerOf } from './exactEvmPayment.ts';
import { checkExactPermit2Payment, isPermit2Payload } from './exactPermit2Payment.ts';
import { checkExactSvmPayment } from './exactSvmPayment.ts';
import type { CheckedX402Payment } from './x402Requirements.ts';
import type { FacilitatorRequest } from './x402Schemas.ts';
import { X402_REASONS, X402Refusal } from './reasons.ts';
import { AccountBlockedError } from '../screening/addressScreening.ts';

/**
 * Checks an x402 `exact` payment for the merchant by its network's namespace and its payload: on EVM networks an
 * EIP-3009 authorisation or a Permit2 permit through x402's proxy paying the merchant's own address, on Solana an SPL
 * transfer to the merchant's own token account. Throws X402Refusal with x402's reason; nothing is recorded or sent.
 */
export async function checkX402Payment(
  ctx: AppContext,
  services: ChainServices,
  request: FacilitatorRequest,
  merchantId: string,
): Promise<CheckedX402Payment> {
  const payment =
    ctx.chains.network(request.paymentRequirements.network)?.namespace === 'solana'
      ? await checkExactSvmPayment(ctx, services, request, merchantId)
      : isPermit2Payload(request)
        ? await checkExactPermit2Payment(ctx, services, request, merchantId)
        : await checkExactEvmPayment(ctx, services, request, merchantId);
  // The payload proved its payer: screened before anything is recorded or sent.
  try {
    await ctx.screening.check('x402', [`${payment.network.caip2}:${payment.payer}`], { merchantId });
  } catch (error) {
    if (!(error instanceof AccountBlockedError)) throw error;
    throw new X402Refusal(X402_REASONS.payerBlocked, error.message);
  }
  return payment;
}

/** The payer a refused payload names, where it can be read without checking it (an EVM authoriser or owner). */
export function payerOf(request: FacilitatorRequest): string | undefined {
  return evmPayerOf(request);
}
