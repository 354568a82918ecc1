import type { AppContext } from '../context.ts';
import type { ChainServices } from '../gateway/chainServices.ts';
import { checkExactEvmPayment, evmPayerOf } from './exactEvmPayment.ts';
import { checkExactSvmPayment } from './exactSvmPayment.ts';
import type { CheckedX402Payment } from './x402Requirements.ts';
import type { FacilitatorRequest } from './x402Schemas.ts';

/**
 * Checks an x402 `exact` payment by its network's namespace: an EIP-3009 authorisation on EVM networks, an SPL
 * transfer on Solana. Throws X402Refusal with x402's reason; nothing is recorded or sent.
 */
export function checkX402Payment(
  ctx: AppContext,
  services: ChainServices,
  request: FacilitatorRequest,
): Promise<CheckedX402Payment> {
  return ctx.chains.network(request.paymentRequirements.network)?.namespace === 'solana'
    ? checkExactSvmPayment(ctx, services, request)
    : checkExactEvmPayment(ctx, services, request);
}

/** The payer a refused payload names, where it can be read without checking it (an EVM authoriser). */
export function payerOf(request: FacilitatorRequest): string | undefined {
  return evmPayerOf(request);
}
