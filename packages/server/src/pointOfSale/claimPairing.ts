import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { hashApiKey } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { DeviceSelfView, newDeviceKey, toDeviceSelfView } from './devices.ts';

const ClaimBody = Type.Object(
  { pairingToken: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);

const ClaimedDevice = Type.Object({
  deviceKey: Type.String({ description: "The device's key, shown this once: send it as Device-Key" }),
  device: DeviceSelfView,
});

/**
 * A device claims its pairing link: the first claim before the link expires gets the device's key, once; the token
 * is spent in the same statement, so two browsers racing for it cannot both win. Needs no credential: the token is
 * the credential, and these requests count against the caller's address.
 */
export function registerClaimPairing(app: App, ctx: AppContext): void {
  app.post(
    '/v1/point-of-sale/pairing',
    {
      schema: {
        tags: ['point of sale'],
        summary: 'Claim a pairing link on the device',
        description: '404 not_found when the link is spent, expired, revoked, or its merchant deleted.',
        body: ClaimBody,
        response: { 201: ClaimedDevice, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const key = newDeviceKey();
      const now = ctx.clock.now();
      const device = await ctx.db
        .updateTable('point_of_sale_devices')
        .set({ key_hash: hashApiKey(key), key_prefix: key.slice(0, 10), paired_at: now, pairing_token_hash: null })
        .where('pairing_token_hash', '=', hashApiKey(request.body.pairingToken))
        .where('revoked_at', 'is', null)
        .where('pairing_expires_at', '>', now)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('merchants')
              .select('merchants.id')
              .whereRef('merchants.id', '=', 'point_of_sale_devices.merchant_id')
              .where('merchants.deleted_at', 'is', null),
          ),
        )
        .returningAll()
        .executeTakeFirst();
      if (!device) throw ApiError.notFound('The pairing link is spent, expired or revoked; make another.');
      const merchant = await ctx.db
        .selectFrom('merchants')
        .select(['id', 'name', 'logo_file'])
        .where('id', '=', device.merchant_id)
        .executeTakeFirstOrThrow();
      return reply.code(201).send({ deviceKey: key, device: toDeviceSelfView(device, merchant, ctx.config.baseUrl) });
    },
  );
}
