import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { PaymentLinkRow } from './paymentLinkResource.ts';

export const PaymentLinkParams = Type.Object({
  id: Type.String({ maxLength: 64, description: 'The payment link id (`plink_...`)' }),
});

/** The partner's link, locked for an update when `forUpdate`; another partner's or an unknown one is 404. */
export async function paymentLinkOfPartner(
  db: Kysely<Database>,
  partnerId: string,
  linkId: string,
  forUpdate = false,
): Promise<PaymentLinkRow> {
  const link = await db
    .selectFrom('payment_links')
    .selectAll()
    .where('id', '=', linkId)
    .where('partner_id', '=', partnerId)
    .$if(forUpdate, (query) => query.forUpdate())
    .executeTakeFirst();
  if (!link) throw new ApiError('not_found', `Payment link ${linkId.slice(0, 64)} not found.`);
  return link;
}
