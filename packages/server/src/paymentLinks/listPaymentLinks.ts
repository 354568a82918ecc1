import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';
import { PaymentLink, toPaymentLinkView, usesOfLinks } from './paymentLinkResource.ts';

const ListPaymentLinksQuery = Type.Object(
  {
    merchantId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "Only this merchant's links; another's is 404" }),
    ),
    active: Type.Optional(Type.Boolean({ description: 'Only the links taking visits (true) or deactivated (false)' })),
    cursor: Type.Optional(Type.String({ maxLength: 4096, description: 'nextCursor of the previous page' })),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  },
  { additionalProperties: false },
);

export function registerListPaymentLinks(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payment-links',
    {
      config: { auth: { scope: 'payments' } },
      schema: {
        tags: ['payment links'],
        summary: "List the payment links of the partner's merchants, newest first",
        description: 'paygate extension.',
        querystring: ListPaymentLinksQuery,
        response: {
          200: Type.Object({ data: Type.Array(PaymentLink), nextCursor: Nullable(Type.String()) }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      const { merchantId, active, limit, cursor } = request.query;
      if (merchantId) await merchantOfPartner(ctx.merchants, partnerId, merchantId, { includeDeleted: true });
      const fingerprint = JSON.stringify([partnerId, merchantId ?? null, active ?? null]);
      const after = cursor ? ctx.cursors.decode<[string, string]>(cursor, fingerprint) : undefined;
      const rows = await ctx.db
        .selectFrom('payment_links')
        .selectAll()
        // As text, the timestamp keeps the microseconds a Date would round away from the next page's start.
        .select(sql<string>`created_at::text`.as('sort_key'))
        .where('partner_id', '=', partnerId)
        .$if(merchantId !== undefined, (query) => query.where('merchant_id', '=', merchantId!))
        .$if(active !== undefined, (query) => query.where('active', '=', active!))
        .$if(after !== undefined, (query) =>
          query.where(sql<boolean>`(created_at, id) < (${after![0]}::timestamptz, ${after![1]})`),
        )
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      const page = ctx.cursors.page(rows, limit, fingerprint, (row) => [row.sort_key, row.id]);
      const now = ctx.clock.now();
      const uses = await usesOfLinks(
        ctx.db,
        page.rows.map((row) => row.id),
        now,
      );
      return {
        data: page.rows.map(({ sort_key: _sortKey, ...link }) =>
          toPaymentLinkView(link, uses.get(link.id), { checkoutUrl: ctx.config.checkoutUrl, now }),
        ),
        nextCursor: page.nextCursor,
      };
    },
  );
}
