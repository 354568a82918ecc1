import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { DeviceSelfView, deviceOf, deviceWithMerchant, toDeviceSelfView } from './devices.ts';

/** The calling device's own settings and merchant: what the app reads when it opens. */
export function registerShowDevice(app: App, ctx: AppContext): void {
  app.get(
    '/v1/point-of-sale/device',
    {
      config: { auth: { device: true } },
      schema: {
        tags: ['point of sale'],
        summary: 'The calling point-of-sale device',
        response: { 200: DeviceSelfView, ...errorResponses() },
      },
    },
    async (request) => {
      const row = await deviceWithMerchant(ctx, deviceOf(request).deviceId);
      return toDeviceSelfView(
        row,
        { id: row.merchant_id, name: row.merchant_name, logo_file: row.logo_file },
        ctx.config.baseUrl,
      );
    },
  );
}
