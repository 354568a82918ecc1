import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';
import type { MerchantRow } from './paymentResource.ts';

export const MerchantIdHeader = Type.Object({
  'merchant-id': Type.Optional(Type.String({ description: 'The merchant the payment belongs to' })),
});

function merchantIdOf(request: FastifyRequest): string | undefined {
  const value = request.headers['merchant-id'];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Route hook: a payment operation without `Merchant-Id` is refused with 401 before its body is looked at, like
 * a missing key.
 */
export async function requireMerchantIdHeader(request: FastifyRequest): Promise<void> {
  if (!merchantIdOf(request)) throw new ApiError('missing_merchant_id');
}

/**
 * The caller's merchant named by `Merchant-Id`, to read its payments; another partner's merchant is reported as
 * missing. A deleted merchant is found: its payments and their history stay readable.
 */
export async function merchantOfRequest(ctx: AppContext, request: FastifyRequest): Promise<MerchantRow> {
  return merchantOfPartner(ctx.merchants, principalOf(request).partnerId, merchantIdOf(request) ?? '', {
    includeDeleted: true,
  });
}

/** The caller's merchant named by `Merchant-Id`, to create a payment: a deleted merchant is reported as missing. */
export async function liveMerchantOfRequest(ctx: AppContext, request: FastifyRequest): Promise<MerchantRow> {
  return merchantOfPartner(ctx.merchants, principalOf(request).partnerId, merchantIdOf(request) ?? '');
}
