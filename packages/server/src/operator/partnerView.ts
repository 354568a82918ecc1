import { Type } from '@sinclair/typebox';
import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { FeeSchedule } from '../settlement/fees.ts';

/** A fee schedule on the wire: the percentage as decimal text, fixed fees in minor units of their currency. */
export const FeeScheduleView = Type.Object({
  percentage: Type.String({ description: 'Decimal text, e.g. "1.5" for 1.5 percent' }),
  fixed: Type.Array(
    Type.Object({
      currency: Type.String({ description: 'ISO 4217 code' }),
      amount: Type.String({ description: 'Minor units of the currency' }),
    }),
  ),
});

export function toFeeScheduleView(schedule: FeeSchedule) {
  return {
    percentage: schedule.percentage,
    fixed: schedule.fixed.map((fee) => ({ currency: fee.currency, amount: fee.amount.toString() })),
  };
}

export const PartnerIdParams = Type.Object({ partnerId: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * Not one of the partners the service makes for itself (the owner of its checkout page's wallet app, see
 * `service_apps`): an operator neither sees nor changes those, for no one signs in as them and their settings are
 * the service's own.
 */
export function managedByOperator(eb: ExpressionBuilder<Database, 'partners'>) {
  return eb(
    'partners.id',
    'not in',
    eb.selectFrom('service_apps').innerJoin('apps', 'apps.id', 'service_apps.app_id').select('apps.partner_id'),
  );
}

/** 404 `not_found` unless the partner exists and is one an operator manages. */
export async function requirePartner(db: Db, partnerId: string): Promise<void> {
  const found = await db
    .selectFrom('partners')
    .select('id')
    .where('partners.id', '=', partnerId)
    .where(managedByOperator)
    .executeTakeFirst();
  if (!found) throw ApiError.notFound(`Partner ${partnerId} does not exist.`);
}
