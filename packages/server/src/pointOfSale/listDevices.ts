import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { errorResponses } from '../http/schemas.ts';
import { DeviceView, toDeviceView } from './devices.ts';

const ListDevicesQuery = Type.Object(
  { merchantId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);

/** The partner's point-of-sale devices, newest first, revoked ones included; of one merchant when asked. */
export function registerListDevices(app: App, ctx: AppContext): void {
  app.get(
    '/v1/point-of-sale/devices',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['point of sale'],
        summary: "List the partner's point-of-sale devices",
        description: 'Newest first, revoked ones included, at most 500; `merchantId` keeps one merchant’s.',
        querystring: ListDevicesQuery,
        response: { 200: Type.Object({ data: Type.Array(DeviceView) }), ...errorResponses() },
      },
    },
    async (request) => {
      const { merchantId } = request.query;
      const rows = await ctx.db
        .selectFrom('point_of_sale_devices')
        .selectAll()
        .where('partner_id', '=', principalOf(request).partnerId)
        .$if(merchantId !== undefined, (query) => query.where('merchant_id', '=', merchantId as string))
        .orderBy('id', 'desc')
        .limit(500)
        .execute();
      const now = ctx.clock.now();
      return { data: rows.map((row) => toDeviceView(row, now)) };
    },
  );
}
