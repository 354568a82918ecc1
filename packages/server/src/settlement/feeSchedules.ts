import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { PaymentRow } from '../payments/paymentResource.ts';
import {
  computeFees,
  type FeeSchedule,
  FeeScheduleError,
  minimumPaymentAmount,
  parsePercentage,
  ZERO_PERCENTAGE,
} from './fees.ts';

/** Replaces a partner's whole fee schedule; it applies to payments that succeed from now on. */
export async function setFeeSchedule(db: Db, partnerId: string, schedule: FeeSchedule): Promise<FeeSchedule> {
  const { text: percentage } = parsePercentage(schedule.percentage);
  const currencies = schedule.fixed.map((fee) => fee.currency);
  if (new Set(currencies).size !== currencies.length)
    throw new FeeScheduleError('give at most one fixed fee per currency');
  return db.transaction().execute(async (trx) => {
    const partner = await trx.selectFrom('partners').select('id').where('id', '=', partnerId).executeTakeFirst();
    if (!partner) throw new FeeScheduleError(`partner ${partnerId} does not exist`);
    await trx
      .insertInto('partner_fee_schedules')
      .values({ partner_id: partnerId, percentage })
      .onConflict((conflict) => conflict.column('partner_id').doUpdateSet({ percentage, updated_at: sql<Date>`now()` }))
      .execute();
    await trx.deleteFrom('partner_fixed_fees').where('partner_id', '=', partnerId).execute();
    if (schedule.fixed.length) {
      await trx
        .insertInto('partner_fixed_fees')
        .values(schedule.fixed.map((fee) => ({ partner_id: partnerId, currency: fee.currency, amount: fee.amount })))
        .execute();
    }
    return { percentage, fixed: [...schedule.fixed].sort((a, b) => a.currency.localeCompare(b.currency)) };
  });
}

/** A partner's schedule as it applies to one currency: the percentage and that currency's fixed fee. */
export interface CurrencyFees {
  percentage: string;
  fixedFiat: bigint;
}

/** The partner's schedule as it applies to one currency. */
export async function feesForCurrency(
  db: Kysely<Database>,
  partnerId: string,
  currency: string,
): Promise<CurrencyFees> {
  const row = await db
    .selectFrom('partner_fee_schedules as schedule')
    .leftJoin('partner_fixed_fees as fixed', (join) =>
      join.onRef('fixed.partner_id', '=', 'schedule.partner_id').on('fixed.currency', '=', currency),
    )
    .select(['schedule.percentage', 'fixed.amount'])
    .where('schedule.partner_id', '=', partnerId)
    .executeTakeFirst();
  return { percentage: row?.percentage ?? ZERO_PERCENTAGE, fixedFiat: BigInt(row?.amount ?? 0) };
}

export async function feeSchedule(db: Db, partnerId: string): Promise<FeeSchedule> {
  const schedule = await db
    .selectFrom('partner_fee_schedules')
    .select('percentage')
    .where('partner_id', '=', partnerId)
    .executeTakeFirst();
  const fixed = await db
    .selectFrom('partner_fixed_fees')
    .select(['currency', 'amount'])
    .where('partner_id', '=', partnerId)
    .orderBy('currency')
    .execute();
  return {
    percentage: schedule?.percentage ?? ZERO_PERCENTAGE,
    fixed: fixed.map((fee) => ({ currency: fee.currency, amount: BigInt(fee.amount) })),
  };
}

/** The smallest amount, in minor units of the currency, that these fees leave something of (D8). */
export function minimumAmountUnder(fees: CurrencyFees): bigint {
  return minimumPaymentAmount(fees.fixedFiat, parsePercentage(fees.percentage).value);
}

/** The smallest amount, in minor units of `currency`, that the partner's fees leave something of (D8). */
export async function minimumAmountFor(db: Kysely<Database>, partnerId: string, currency: string): Promise<bigint> {
  return minimumAmountUnder(await feesForCurrency(db, partnerId, currency));
}

/**
 * An SQL condition that holds while the partner's schedule for `currency` is still `fees`, so that a statement can
 * rely on fees read earlier (and remembered) without reading them first.
 */
export function feesStillAre(partnerId: string, currency: string, fees: CurrencyFees): RawBuilder<boolean> {
  const isNoSchedule = fees.percentage === ZERO_PERCENTAGE && fees.fixedFiat === 0n;
  return sql<boolean>`COALESCE((
    SELECT schedule.percentage = ${fees.percentage} AND COALESCE(fixed.amount, 0) = ${fees.fixedFiat}
    FROM partner_fee_schedules AS schedule
    LEFT JOIN partner_fixed_fees AS fixed ON fixed.partner_id = schedule.partner_id AND fixed.currency = ${currency}
    WHERE schedule.partner_id = ${partnerId}
  ), ${isNoSchedule})`;
}

/** Most partner and currency pairs remembered at once; past it the memory starts again empty. */
const MAX_REMEMBERED_FEES = 10_000;

/**
 * Fees per partner and currency as this process last read them. Only statements that confirm them with
 * `feesStillAre` may use them: a schedule changed meanwhile, by any process, fails that condition.
 */
export class RememberedFees {
  private readonly fees = new Map<string, CurrencyFees>();

  get(partnerId: string, currency: string): CurrencyFees | undefined {
    return this.fees.get(`${partnerId} ${currency}`);
  }

  /** Reads the partner's fees for `currency` inside `db` (a transaction or not) and remembers them. */
  async read(db: Kysely<Database>, partnerId: string, currency: string): Promise<CurrencyFees> {
    const fees = await feesForCurrency(db, partnerId, currency);
    if (this.fees.size >= MAX_REMEMBERED_FEES) this.fees.clear();
    this.fees.set(`${partnerId} ${currency}`, fees);
    return fees;
  }
}

/**
 * The fee and settlement columns a payment gets when it succeeds, from its partner's schedule at that moment;
 * called inside the transaction that makes it succeeded. `payment` carries the token amount paid.
 */
export async function feeColumnsOnSuccess(
  trx: Kysely<Database>,
  payment: Pick<PaymentRow, 'partner_id' | 'fiat_currency' | 'fiat_value' | 'token_value'>,
): Promise<
  Pick<PaymentRow, 'fee_total' | 'fee_fixed' | 'fee_percentage' | 'settlement_amount'> | Record<string, never>
> {
  if (payment.token_value === null) return {};
  const { percentage, fixedFiat } = await feesForCurrency(trx, payment.partner_id, payment.fiat_currency);
  const fees = computeFees({
    tokenAmount: BigInt(payment.token_value),
    fiatAmount: BigInt(payment.fiat_value),
    fixedFiat,
    percentage: parsePercentage(percentage).value,
  });
  return {
    fee_total: fees.total.toString(),
    fee_fixed: fees.fixed.toString(),
    fee_percentage: percentage,
    settlement_amount: fees.net.toString(),
  };
}

export interface FeeReportLine {
  asset: string;
  symbol: string | null;
  payments: number;
  /** Token minor units: every fee charged, those of settled payments, and those still awaiting settlement. */
  total: string;
  settled: string;
  unsettled: string;
}

/**
 * The fees the service kept per asset for a partner's succeeded payments, or those of one of its merchants; they stay
 * with the collector.
 */
export async function feesReport(
  db: Db,
  partnerId: string,
  merchantId?: string,
): Promise<{ partnerId: string; schedule: FeeSchedule; fees: FeeReportLine[] }> {
  const partner = await db.selectFrom('partners').select('id').where('id', '=', partnerId).executeTakeFirst();
  if (!partner) throw new FeeScheduleError(`partner ${partnerId} does not exist`);
  let payments = db.selectFrom('payments').where('partner_id', '=', partnerId);
  if (merchantId !== undefined) payments = payments.where('merchant_id', '=', merchantId);
  const rows = await payments
    .select([
      'token_asset',
      sql<string | null>`max(token_symbol)`.as('symbol'),
      sql<string>`count(*)`.as('payments'),
      sql<string>`coalesce(sum(fee_total), 0)::text`.as('total'),
      sql<string>`coalesce(sum(fee_total) FILTER (WHERE settled_at IS NOT NULL), 0)::text`.as('settled'),
    ])
    .where('status', '=', 'succeeded')
    .where('fee_total', 'is not', null)
    .groupBy('token_asset')
    .orderBy('token_asset')
    .execute();
  return {
    partnerId,
    schedule: await feeSchedule(db, partnerId),
    fees: rows.map((row) => ({
      asset: row.token_asset as string,
      symbol: row.symbol,
      payments: Number(row.payments),
      total: row.total,
      settled: row.settled,
      unsettled: (BigInt(row.total) - BigInt(row.settled)).toString(),
    })),
  };
}
