import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { Refund, toRefundView } from './refundResource.ts';

export function registerGetRefund(app: App, ctx: AppContext): void {
  app.get(
    '/v1/refunds/:id',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['refunds'],
        summary: 'A refund, with its status and transaction',
        params: Type.Object({ id: Type.String({ description: 'The refund id (`rfnd_...`)' }) }),
        response: { 200: Refund, ...errorResponses(404) },
      },
    },
    async (request) => {
      const refund = await ctx.db
        .selectFrom('refunds')
        .selectAll()
        .where('id', '=', request.params.id)
        .where('partner_id', '=', principalOf(request).partnerId)
        .executeTakeFirst();
      if (!refund) throw new ApiError('not_found', `Refund ${request.params.id.slice(0, 64)} not found.`);
      return toRefundView(refund);
    },
  );
}
