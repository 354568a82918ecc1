import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { PaymentOptionsTable } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { OptionAction, OptionTerms } from './methods/terms.ts';

/** An offered option with its terms as the method of kind `T['kind']` made them. */
export type OptionRow<T extends OptionTerms = OptionTerms> = Omit<
  Selectable<PaymentOptionsTable>,
  'actions' | 'terms'
> & { actions: OptionAction[]; terms: T };

/** An option offered for this payment; any other id is a validation error on `optionId`. */
export async function offeredOption(db: Db, paymentId: string, optionId: string): Promise<OptionRow> {
  const row = await db
    .selectFrom('payment_options')
    .selectAll()
    .where('id', '=', optionId)
    .where('payment_id', '=', paymentId)
    .executeTakeFirst();
  if (!row) throw ApiError.validation([{ field: 'optionId', message: 'is not an option offered for this payment' }]);
  return row as OptionRow;
}

/** 409 once the option's price quote has ended: the wallet asks for options again. */
export function requireLiveQuote(option: OptionRow, now: Date): void {
  if (option.quote_expires_at && now.getTime() >= option.quote_expires_at.getTime()) {
    throw new ApiError('quote_expired', 'The quote of this option has ended; ask for options again.', {
      expiresAt: Math.floor(option.quote_expires_at.getTime() / 1000),
    });
  }
}
