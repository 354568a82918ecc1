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
    search: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: 'Substring of the merchant name or id, any case' }),
    ),
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
        description: 'Deleted merchants are not listed. `merchants` is the same page as `data`.',
        querystring: ListMerchantsQuery,
        response: {
          200: Type.Object({
            data: Type.Array(Merchant),
            // The same schema under another name: a schema with an $id may stand only once in a response.
            merchants: Type.Array(Type.Object(Merchant.properties), { description: 'The same page as `data`' }),
            totalCount: Type.Integer({ description: 'Merchants matching the filters, on every page' }),
            nextCursor: Nullable(Type.String()),
          }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { partnerId } = principalOf(request);
      const { limit, cursor, status, search } = request.query;
      const queryFingerprint = JSON.stringify([partnerId, status ?? null, search ?? null]);
      const after = cursor === undefined ? undefined : cursors.decode<string>(cursor, queryFingerprint);
      let matching = ctx.db.selectFrom('merchants').where('partner_id', '=', partnerId).where('deleted_at', 'is', null);
      if (status) matching = matching.where('status', '=', status);
      if (search) {
        const pattern = likePattern(search);
        matching = matching.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('id', 'ilike', pattern)]));
      }
      const pageQuery = after === undefined ? matching : matching.where('id', '<', after);
      const [rows, { count }] = await Promise.all([
        pageQuery
          .selectAll()
          .orderBy('id', 'desc')
          .limit(limit + 1)
          .execute(),
        matching.select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow(),
      ]);
      const page = cursors.page(rows, limit, queryFingerprint, (row) => row.id);
      const merchants = page.rows.map((row) => toMerchant(row, ctx.config.baseUrl));
      return { data: merchants, merchants, totalCount: Number(count), nextCursor: page.nextCursor };
    },
  );
}
