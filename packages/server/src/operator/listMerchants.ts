import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { MERCHANT_STATUSES } from '../merchants/merchantResource.ts';

const MerchantsQuery = Type.Object(
  {
    partnerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    status: Type.Optional(Type.Union(MERCHANT_STATUSES.map((status) => Type.Literal(status)))),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  },
  { additionalProperties: false },
);

const MerchantSummary = Type.Object({
  merchantId: Type.String(),
  partnerId: Type.String(),
  partnerName: Type.String(),
  name: Type.String(),
  email: Type.String(),
  status: Type.String({ description: 'active, inactive or suspended' }),
  deleted: Type.Boolean(),
  createdAt: Type.String({ description: 'ISO 8601 timestamp' }),
});

/** The merchants of every partner (deleted ones too), oldest first, a keyset page at a time. */
export function registerListMerchants(app: App, ctx: AppContext): void {
  app.get(
    '/operator/api/merchants',
    {
      schema: {
        tags: ['operator'],
        summary: 'The merchants of every partner',
        querystring: MerchantsQuery,
        response: {
          200: Type.Object({ data: Type.Array(MerchantSummary), nextCursor: Nullable(Type.String()) }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { partnerId, status, cursor, limit } = request.query;
      const fingerprint = JSON.stringify(['operator-merchants', partnerId ?? null, status ?? null]);
      const after = cursor ? ctx.cursors.decode<string>(cursor, fingerprint) : undefined;
      const rows = await ctx.db
        .selectFrom('merchants')
        .innerJoin('partners', 'partners.id', 'merchants.partner_id')
        .select([
          'merchants.id',
          'merchants.partner_id',
          'partners.name as partner_name',
          'merchants.name',
          'merchants.email',
          'merchants.status',
          'merchants.deleted_at',
          'merchants.created_at',
        ])
        .$if(partnerId !== undefined, (query) => query.where('merchants.partner_id', '=', partnerId as string))
        .$if(status !== undefined, (query) =>
          query.where('merchants.status', '=', status as (typeof MERCHANT_STATUSES)[number]),
        )
        .$if(after !== undefined, (query) => query.where('merchants.id', '>', after as string))
        .orderBy('merchants.id')
        .limit(limit + 1)
        .execute();
      const page = ctx.cursors.page(rows, limit, fingerprint, (row) => row.id);
      return {
        data: page.rows.map((row) => ({
          merchantId: row.id,
          partnerId: row.partner_id,
          partnerName: row.partner_name,
          name: row.name,
          email: row.email,
          status: row.status,
          deleted: row.deleted_at !== null,
          createdAt: row.created_at.toISOString(),
        })),
        nextCursor: page.nextCursor,
      };
    },
  );
}
