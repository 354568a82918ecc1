import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { merchantOfRequest } from './merchantHeader.ts';
import type { MerchantRow, PaymentRow } from './paymentResource.ts';

export const PaymentIdParams = Type.Object({ id: Type.String({ maxLength: 64, description: 'The paymentId' }) });

/** The payment `id` of the request's merchant; anything else, another partner's included, is not found. */
export async function paymentOfRequest(
  ctx: AppContext,
  request: FastifyRequest,
  paymentId: string,
): Promise<{ payment: PaymentRow; merchant: MerchantRow }> {
  const merchant = await merchantOfRequest(ctx, request);
  const payment = await ctx.db
    .selectFrom('payments')
    .selectAll()
    .where('id', '=', paymentId)
    .where('merchant_id', '=', merchant.id)
    .executeTakeFirst();
  if (!payment) throw ApiError.notFound(`Payment ${paymentId.slice(0, 64)} not found.`, 'payment_not_found');
  return { payment, merchant };
}
