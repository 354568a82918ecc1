import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { hashApiKey, principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';
import { fiatCurrency } from '../payments/currencies.ts';
import { newId } from '../ids.ts';
import { DeviceView, newPairingToken, PAIRING_LIFETIME_MS, pairingUrl, TipPercents, toDeviceView } from './devices.ts';

const PairDeviceBody = Type.Object(
  {
    merchantId: Type.String({ minLength: 1, maxLength: 64 }),
    name: Type.String({ minLength: 1, maxLength: 64, description: 'What the shop calls the device ("Front till")' }),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217; default USD' })),
    tipPercents: Type.Optional(TipPercents),
  },
  { additionalProperties: false },
);

const PairedDevice = Type.Object({
  device: DeviceView,
  pairingUrl: Type.String({
    description: 'Opened once on the device (as a link or its QR code) before pairingExpiresAt, it pairs the device',
  }),
});

/**
 * Makes a point-of-sale device of a merchant, waiting to be paired: its one-time link, shown this once and kept only
 * hashed, gives whichever browser opens it first the device's key. Like an API key's, the answer is not stored, so
 * this route takes no Idempotency-Key; a retry makes another device, which can be revoked.
 */
export function registerPairDevice(app: App, ctx: AppContext): void {
  app.post(
    '/v1/point-of-sale/devices',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['point of sale'],
        summary: 'Pair a point-of-sale device',
        description:
          "A new device of the merchant and its one-time pairing link, valid for 10 minutes. The device's key can create the merchant's payments and read those it made, nothing else.",
        body: PairDeviceBody,
        response: { 201: PairedDevice, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { partnerId } = principalOf(request);
      const { body } = request;
      const merchant = await merchantOfPartner(ctx.merchants, partnerId, body.merchantId);
      const currency = body.currency ?? 'USD';
      if (!fiatCurrency(currency)) {
        throw ApiError.validation([{ field: 'currency', message: 'must be a known ISO 4217 currency code' }]);
      }
      const name = body.name.trim();
      if (!name) throw ApiError.validation([{ field: 'name', message: 'must not be blank' }]);
      const token = newPairingToken();
      const now = ctx.clock.now();
      const device = await ctx.db
        .insertInto('point_of_sale_devices')
        .values({
          id: newId('posd'),
          partner_id: partnerId,
          merchant_id: merchant.id,
          name,
          currency,
          tip_percents: body.tipPercents ?? [10, 15, 20],
          pairing_token_hash: hashApiKey(token),
          pairing_expires_at: new Date(now.getTime() + PAIRING_LIFETIME_MS),
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return reply
        .code(201)
        .send({ device: toDeviceView(device, now), pairingUrl: pairingUrl(ctx.config.baseUrl, token) });
    },
  );
}
