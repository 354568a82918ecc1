import { type RawBuilder, sql, type Transaction, type Updateable } from 'kysely';
import { afterCommit } from '../db/afterCommit.ts';
import { PREPARED } from '../db/preparedStatements.ts';
import { type Db, inTransaction } from '../db/database.ts';
import { type Logger, logDomainEvent } from '../log.ts';
import type { Database, PaymentStatus, PaymentsTable } from '../db/schema.ts';
import { type EventStamp, type EventType, eventWrites, recordEvent } from '../webhooks/events.ts';
import { feeColumnsOnSuccess } from '../settlement/feeSchedules.ts';
import { postPaymentReceived } from '../ledger/ledger.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { type MerchantRow, toPaymentItem, type PaymentRow } from './paymentResource.ts';
import { exceptionsOnSuccess } from './paymentExceptions.ts';
import { canAcceptLatePayment, canTransition } from './stateMachine.ts';
import { PAYMENT_STATUS_CHANNEL } from './statusWaiter.ts';

export class InvalidTransitionError extends Error {
  override readonly name = 'InvalidTransitionError';

  constructor(
    readonly from: PaymentStatus,
    readonly to: PaymentStatus,
  ) {
    super(`a ${from} payment cannot become ${to}`);
  }
}

/**
 * What a handler of chain outcomes (a transfer's end, a deposit seen, a Solana Pay transfer) needs to change
 * payments in the follower's transaction; the composition root builds one for all of them.
 */
export interface OutcomeContext {
  chains: ChainRegistry;
  /** Links in the events a payment change records name the service's base URL, known once it listens. */
  baseUrl: () => string;
  clock: { now(): Date };
  log: Logger;
}

export interface TransitionContext {
  db: Db;
  chains: ChainRegistry;
  baseUrl: string;
  now: Date;
}

type PaymentEventType = Extract<EventType, `payment.${string}`>;

/** What a payment's webhook event needs besides the payment: its merchant as the API shows it and the event stamp. */
interface EventContext {
  merchant: Pick<MerchantRow, 'id' | 'name' | 'logo_file'>;
  stamp: EventStamp;
}

/**
 * The merchant and event stamp an announcement needs, and the wake-up of long-pollers in every process (sent at
 * commit), as columns of the statement that writes or reads the payment; `payment` holds its ids, as columns of that
 * statement or as values.
 */
function eventContextColumns(payment: { id: unknown; merchantId: unknown; partnerId: unknown }) {
  return [
    sql<string>`(SELECT name FROM merchants WHERE merchants.id = ${payment.merchantId})`.as('event_merchant_name'),
    sql<string | null>`(SELECT logo_file FROM merchants WHERE merchants.id = ${payment.merchantId})`.as(
      'event_merchant_logo_file',
    ),
    sql<string>`(SELECT pinned_version FROM partners WHERE partners.id = ${payment.partnerId})`.as('event_api_version'),
    sql<Date>`now()`.as('event_created_at'),
    sql<unknown>`pg_notify(${PAYMENT_STATUS_CHANNEL}, ${payment.id})`.as('event_notified'),
  ];
}

interface EventContextColumns {
  event_merchant_name: string;
  event_merchant_logo_file: string | null;
  event_api_version: string;
  event_created_at: Date;
}

function eventContextOf(merchantId: string, columns: EventContextColumns): EventContext {
  return {
    merchant: { id: merchantId, name: columns.event_merchant_name, logo_file: columns.event_merchant_logo_file },
    stamp: { apiVersion: columns.event_api_version, createdAt: columns.event_created_at },
  };
}

async function recordPaymentEvent(
  trx: Transaction<Database>,
  context: Omit<TransitionContext, 'db'>,
  payment: PaymentRow,
  type: PaymentEventType,
  event: EventContext,
): Promise<void> {
  await recordEvent(
    trx,
    {
      partnerId: payment.partner_id,
      merchantId: payment.merchant_id,
      type,
      object: toPaymentItem(payment, event.merchant, context.chains, context.baseUrl, context.now),
    },
    event.stamp,
  );
}

/** The `info` line of a payment's event: ids, amounts, network and hash, no buyer data. */
function logPaymentEvent(payment: PaymentRow, type: PaymentEventType): void {
  logDomainEvent(type, {
    paymentId: payment.id,
    merchantId: payment.merchant_id,
    partnerId: payment.partner_id,
    amount: payment.fiat_value,
    currency: payment.fiat_currency,
    network: payment.network,
    token: payment.token_symbol,
    tokenAmount: payment.token_value,
    txHash: payment.tx_hash,
    failureCode: payment.failure_code,
  });
}

/** Logs the payment's event once `trx` commits. */
async function logPaymentEventAtCommit(
  trx: Transaction<Database>,
  payment: PaymentRow,
  type: PaymentEventType,
): Promise<void> {
  await afterCommit(trx, () => logPaymentEvent(payment, type));
}

/** Records the payment's webhook event and wakes long-pollers in every process, inside `trx`. */
export async function announcePayment(
  trx: Transaction<Database>,
  context: Omit<TransitionContext, 'db'>,
  payment: PaymentRow,
  type: PaymentEventType,
): Promise<void> {
  const columns = await trx
    .selectNoFrom(
      eventContextColumns({ id: payment.id, merchantId: payment.merchant_id, partnerId: payment.partner_id }),
    )
    .executeTakeFirstOrThrow();
  await recordPaymentEvent(trx, context, payment, type, eventContextOf(payment.merchant_id, columns));
  if (type === 'payment.created') await logPaymentEventAtCommit(trx, payment, type);
}

/**
 * What a statement that writes a payment returns besides its row, so that the payment's event needs no read of its
 * own and its long-pollers are notified at commit.
 */
export function announcedColumns() {
  return eventContextColumns({
    id: sql.ref('payments.id'),
    merchantId: sql.ref('payments.merchant_id'),
    partnerId: sql.ref('payments.partner_id'),
  });
}

/** Records the event of a payment a statement wrote and returned with `announcedColumns`; the payment's row. */
export async function announceWritten(
  trx: Transaction<Database>,
  context: Omit<TransitionContext, 'db'>,
  written: PaymentRow & EventContextColumns & { event_notified: unknown },
  type: PaymentEventType,
): Promise<PaymentRow> {
  const {
    event_merchant_name,
    event_merchant_logo_file,
    event_api_version,
    event_created_at,
    event_notified: _sent,
    ...payment
  } = written;
  const event = eventContextOf(payment.merchant_id, {
    event_merchant_name,
    event_merchant_logo_file,
    event_api_version,
    event_created_at,
  });
  await recordPaymentEvent(trx, context, payment, type, event);
  await logPaymentEventAtCommit(trx, payment, type);
  return payment;
}

/**
 * Writes a new payment, its `payment.created` event with its deliveries, the wake-up of its long-pollers and, with
 * `claim` (a CTE over `payment`, as `claimWithAnswer` makes it), an `Idempotency-Key`'s claim, in one statement: one
 * round trip and no transaction held open. `row` is the payment as the database will hold it, every column given, so
 * the event shows exactly what was written. Nothing is written unless the partner's API version is still `stamp`'s and
 * the merchant's name and logo still `merchant`'s (what the event shows), `conditions` hold and no payment of the
 * merchant has the reference. Returns whether it was written.
 */
export async function insertAnnouncedPayment(
  context: TransitionContext,
  row: PaymentRow,
  merchant: Pick<MerchantRow, 'id' | 'name' | 'logo_file'>,
  stamp: EventStamp,
  conditions: RawBuilder<boolean>,
  claim?: (written: RawBuilder<boolean>) => RawBuilder<unknown>,
): Promise<boolean> {
  const { exceptions, ...columns } = row;
  const values = { ...columns, exceptions: JSON.stringify(exceptions) };
  const written = sql<boolean>`EXISTS (SELECT FROM payment)`;
  const object = toPaymentItem(row, merchant, context.chains, context.baseUrl, context.now);
  const event = eventWrites(
    { partnerId: row.partner_id, merchantId: row.merchant_id, type: 'payment.created', object },
    stamp,
    written,
  );
  const { rows } = await sql<{ id: string }>`${sql.raw(PREPARED)}
    WITH payment AS (
      INSERT INTO payments (${sql.join(Object.keys(values).map((column) => sql.ref(column)))})
      SELECT ${sql.join(Object.values(values))}
      WHERE (SELECT pinned_version FROM partners WHERE id = ${row.partner_id}) = ${stamp.apiVersion}
        AND (SELECT name = ${merchant.name} AND logo_file IS NOT DISTINCT FROM ${merchant.logo_file}
          FROM merchants WHERE id = ${merchant.id})
        AND ${conditions}
      ON CONFLICT (merchant_id, reference_id) DO NOTHING
      RETURNING id
    ), ${claim ? sql`${claim(written)}, ` : sql``}${event.ctes}
    SELECT payment.id, pg_notify(${PAYMENT_STATUS_CHANNEL}, payment.id), ${event.firstAttempts} FROM payment
  `.execute(context.db);
  if (rows.length === 0) return false;
  logPaymentEvent(row, 'payment.created');
  return true;
}

/**
 * The one way a payment changes state (D8): checks the transition, writes the state and `changes`, records the
 * webhook event and notifies long-pollers, in one transaction. Asking for the state the payment is already in
 * changes nothing and returns it. `acceptingLatePayment` lets a closed unpaid payment succeed
 * (`canAcceptLatePayment`), for the merchant's acceptance of a late transfer only.
 */
export async function changePaymentStatus(
  context: TransitionContext,
  paymentId: string,
  to: PaymentStatus,
  changes: Omit<Updateable<PaymentsTable>, 'status' | 'id'> = {},
  options: { acceptingLatePayment?: boolean } = {},
): Promise<{ payment: PaymentRow; changed: boolean }> {
  return inTransaction(context.db, async (trx) => {
    const current = await trx
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', paymentId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (current.status === to) return { payment: current, changed: false };
    const acceptedLate = options.acceptingLatePayment && to === 'succeeded' && canAcceptLatePayment(current.status);
    if (!acceptedLate && !canTransition(current.status, to)) throw new InvalidTransitionError(current.status, to);
    // Fees are fixed when the payment succeeds, from the partner's schedule at that moment (D15).
    const fees = to === 'succeeded' ? await feeColumnsOnSuccess(trx, { ...current, ...changes } as PaymentRow) : {};
    const exceptions = to === 'succeeded' ? exceptionsOnSuccess(current.exceptions) : undefined;
    const updated = await trx
      .updateTable('payments')
      .set({
        ...changes,
        ...fees,
        ...(exceptions ? { exceptions: JSON.stringify(exceptions) } : {}),
        status: to,
        updated_at: context.now,
      })
      .where('id', '=', paymentId)
      .returningAll()
      .returning(announcedColumns())
      .executeTakeFirstOrThrow();
    if (to === 'succeeded') await postPaymentReceived(trx, updated);
    const payment = await announceWritten(trx, context, updated, `payment.${to}` as PaymentEventType);
    return { payment, changed: true };
  });
}
