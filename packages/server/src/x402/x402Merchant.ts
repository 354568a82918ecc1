import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { liveMerchantOfRequest } from '../payments/merchantHeader.ts';
import type { MerchantRow } from '../payments/paymentResource.ts';

/**
 * The merchant an x402 payment is for, named by `Merchant-Id` as on the merchant routes: another partner's, an
 * unknown or a deleted merchant is 404, one that is not active 403, as a payment create answers.
 */
export async function merchantTakingX402(ctx: AppContext, request: FastifyRequest): Promise<MerchantRow> {
  const merchant = await liveMerchantOfRequest(ctx, request);
  if (merchant.status !== 'active')
    throw new ApiError('forbidden', `Merchant ${merchant.id} is ${merchant.status} and cannot take payments.`);
  return merchant;
}
