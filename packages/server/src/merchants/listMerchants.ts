import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { Merchant, MERCHANT_STATUSES, toMerchant } from './merchantResource.ts';

const ListMerchantsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
    status: Type.Optional(Type.Union(MERCHANT_STATUSES.map((status) => Type.Literal(status)))),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Substring of the merchant name' })),
  },
  { additionalProperties: false },
);

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

export function registerListMerchants(app: App, ctx: AppContext): void {
  const cursors = ctx.cursors;
  app.get(
    '/v1/merchants',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['merchants'],
        summary: "List the account's merchants, newest first",
        querystring: ListMerchantsQuery,
        response: {
          200: Type.Object({ data: Type.Array(Merchant), nextCursor: Nullable(Type.String()) }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      const { limit, cursor, status, search } = request.query;
      const queryFingerprint = JSON.stringify([partnerId, status ?? null, search ?? null]);
      const after = cursor === undefined ? undefined : cursors.decode<string>(cursor, queryFingerprint);
      let query = ctx.db.selectFrom('merchants').selectAll().where('partner_id', '=', partnerId);
      if (status) query = query.where('status', '=', status);
      if (search) query = query.where('name', 'ilike', likePattern(search));
      if (after !== undefined) query = query.where('id', '<', after);
      const rows = await query
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      const page = cursors.page(rows, limit, queryFingerprint, (row) => row.id);
      return { data: page.rows.map((row) => toMerchant(row, ctx.config.baseUrl)), nextCursor: page.nextCursor };
    },
  );
}
