import { tipOfPercent } from '@paygate/client/money';
import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';
import { createMerchantPayment } from '../payments/createPayment.ts';
import { paymentSource } from '../payments/paymentResource.ts';
import { RememberedFees } from '../settlement/feeSchedules.ts';
import { ChargeView, chargeOfDevice, toChargeView } from './charges.ts';
import { deviceOf, deviceWithMerchant } from './devices.ts';

const CreateChargeBody = Type.Object(
  {
    chargeId: Type.String({
      pattern: '^[A-Za-z0-9_-]{8,64}$',
      description: 'Made by the device for this charge: a retry with the same id and amount answers the same payment',
    }),
    amount: Type.String({
      pattern: '^[1-9][0-9]{0,17}$',
      description: "Minor units of the device's currency, before the tip",
    }),
    tipPercent: Type.Optional(Type.Integer({ description: "One of the device's tipPercents" })),
    note: Type.Optional(Type.String({ maxLength: 140, description: 'The cashier’s note or reference' })),
  },
  { additionalProperties: false },
);

/**
 * Charges the buyer at the till: a payment of the device's merchant for the amount plus the tip (the tip is the
 * percent of the amount rounded half up to the minor unit, so the two add up exactly to what is asked), made as a
 * partner's create makes one (fee minimum, `payment.created` event), with source `point_of_sale`.
 */
export function registerCreateCharge(app: App, ctx: AppContext): void {
  const fees = new RememberedFees();
  app.post(
    '/v1/point-of-sale/charges',
    {
      config: { auth: { device: true } },
      schema: {
        tags: ['point of sale'],
        summary: 'Charge an amount on the device',
        description:
          '201 with the new payment; 200 with the payment a retry of the same chargeId and amount made; 409 idempotency_conflict for the same chargeId with another amount. 403 forbidden when the merchant is not taking payments.',
        body: CreateChargeBody,
        response: { 200: ChargeView, 201: ChargeView, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const { deviceId, partnerId, merchantId } = deviceOf(request);
      const { body } = request;
      const device = await deviceWithMerchant(ctx, deviceId);
      if (device.merchant_status !== 'active') {
        throw new ApiError(
          'forbidden',
          `Merchant ${merchantId} is ${device.merchant_status} and cannot take payments.`,
        );
      }
      if (body.tipPercent !== undefined && !device.tip_percents.includes(body.tipPercent)) {
        throw ApiError.validation([
          {
            field: 'tipPercent',
            message: `must be one of the device's tips: ${device.tip_percents.join(', ') || 'none'}`,
          },
        ]);
      }
      const base = BigInt(body.amount);
      const tip = body.tipPercent === undefined ? 0n : tipOfPercent(base, body.tipPercent);
      const merchant = await merchantOfPartner(ctx.merchants, partnerId, merchantId);
      const now = ctx.clock.now();
      const created = await ctx.db.transaction().execute(async (trx) => {
        const made = await createMerchantPayment(
          ctx,
          trx,
          merchant,
          {
            amount: { currency: device.currency, value: base + tip },
            referenceId: `pos:${deviceId}:${body.chargeId}`,
            origin: 'point_of_sale',
          },
          fees,
        );
        await trx
          .insertInto('point_of_sale_charges')
          .values({
            payment_id: made.payment.id,
            device_id: deviceId,
            base_value: base,
            tip_value: tip,
            note: body.note?.trim() || null,
            created_at: now,
          })
          .onConflict((conflict) => conflict.column('payment_id').doNothing())
          .execute();
        if (!made.created) {
          // A retry: the same charge of this device, split the same way, or no charge of it at all.
          const first = await trx
            .selectFrom('point_of_sale_charges')
            .select(['device_id', 'base_value', 'tip_value'])
            .where('payment_id', '=', made.payment.id)
            .executeTakeFirst();
          const same =
            paymentSource(made.payment) === 'point_of_sale' &&
            first?.device_id === deviceId &&
            BigInt(first.base_value) === base &&
            BigInt(first.tip_value) === tip;
          if (!same) {
            throw new ApiError('idempotency_conflict', 'This chargeId was used for another charge.', {
              paymentId: made.payment.id,
            });
          }
        }
        return made;
      });
      const charge = await chargeOfDevice(ctx, deviceId, created.payment.id);
      return reply.code(created.created ? 201 : 200).send(toChargeView(ctx, charge, ctx.clock.now()));
    },
  );
}
