import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { DeviceView, toDeviceView } from './devices.ts';

const DeviceIdParams = Type.Object({ deviceId: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * Revokes one of the partner's devices, paired or still waiting: its key stops at once in this process and within
 * AUTH_CACHE_TTL_MS in the others, and its pairing link can no longer be claimed. Revoking it again answers the same.
 */
export function registerRevokeDevice(app: App, ctx: AppContext): void {
  app.delete(
    '/v1/point-of-sale/devices/:deviceId',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['point of sale'],
        summary: 'Revoke a point-of-sale device',
        params: DeviceIdParams,
        response: { 200: DeviceView, ...errorResponses(404) },
      },
    },
    async (request) => {
      const now = ctx.clock.now();
      const partnerId = principalOf(request).partnerId;
      const revoked = await ctx.db
        .updateTable('point_of_sale_devices')
        .set({ revoked_at: now })
        .where('id', '=', request.params.deviceId)
        .where('partner_id', '=', partnerId)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      const device =
        revoked ??
        (await ctx.db
          .selectFrom('point_of_sale_devices')
          .selectAll()
          .where('id', '=', request.params.deviceId)
          .where('partner_id', '=', partnerId)
          .executeTakeFirst());
      if (!device) throw ApiError.notFound(`Device ${request.params.deviceId} not found.`);
      ctx.credentials.forgetDevice(device.id);
      return toDeviceView(device, now);
    },
  );
}
