import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Insertable, Selectable, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { AppContext, App } from '../context.ts';
import type { Database, RefundsTable } from '../db/schema.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { runIdempotently, type StoredResponse } from '../http/idempotency.ts';
import { errorResponses } from '../http/schemas.ts';
import { sendStoredResponse } from '../http/storedResponse.ts';
import { newId } from '../ids.ts';
import { InsufficientBalanceError, postPayoutDecided, refundOwner } from '../ledger/ledger.ts';
import { MerchantIdHeader, merchantOfRequest, requireMerchantIdHeader } from '../payments/merchantHeader.ts';
import type { MerchantRow, PaymentRow } from '../payments/paymentResource.ts';
import { effectiveStatus, isTerminal } from '../payments/stateMachine.ts';
import { recordEvent } from '../webhooks/events.ts';
import { refundableFiat, tokenAmountOfRefund } from './refundAmounts.ts';
import { Refund, toRefundView } from './refundResource.ts';

const MINOR_UNITS = /^[1-9][0-9]{0,18}$/;

const CreateRefundBody = Type.Object(
  {
    paymentId: Type.String({ minLength: 1, maxLength: 100 }),
    amount: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              unit: Type.String({ description: 'The payment currency, `iso4217/USD` for example' }),
              value: Type.String({ description: 'Minor units of the payment currency' }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        { description: 'How much to refund, in the payment currency; the whole amount not refunded yet when absent' },
      ),
    ),
    exceptionId: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
        description:
          "Send back one of the payment's exceptions (`exceptions[].id`) whole, on chain, to the account that sent it, " +
          'instead of refunding the payment: neither `amount` nor `send: false` goes with it',
      }),
    ),
    send: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description:
          'true: send the paid token back to the paying account from the collector (method `onchain`); otherwise the refund only records money the merchant returned elsewhere (method `recorded`)',
      }),
    ),
  },
  { additionalProperties: false },
);
type CreateRefundBody = typeof CreateRefundBody.static;

interface RefundRequest {
  paymentId: string;
  /** Minor units of the payment currency, when the caller named an amount. */
  amount?: { currency: string; value: bigint };
  send: boolean;
  /** The payment exception to send back instead of refunding the payment. */
  exceptionId?: string;
}

function understoodRequest(body: CreateRefundBody): RefundRequest {
  const exceptionId = body.exceptionId ?? undefined;
  if (exceptionId !== undefined) {
    const issues = [
      ...(body.amount ? [{ field: 'amount', message: 'an exception is sent back whole: leave amount out' }] : []),
      ...(body.send === false
        ? [{ field: 'send', message: 'an exception is sent back on chain: leave send out' }]
        : []),
    ];
    if (issues.length > 0) throw ApiError.validation(issues);
    return { paymentId: body.paymentId, send: true, exceptionId };
  }
  const amount = body.amount ?? undefined;
  if (amount === undefined) return { paymentId: body.paymentId, send: body.send === true };
  const currency = /^iso4217\/([A-Z]{3})$/.exec(amount.unit)?.[1];
  const issues = [
    ...(currency ? [] : [{ field: 'amount.unit', message: 'must be iso4217/ followed by a currency code' }]),
    ...(MINOR_UNITS.test(amount.value)
      ? []
      : [{ field: 'amount.value', message: 'must be a positive whole number of minor units' }]),
  ];
  if (issues.length > 0 || !currency) throw ApiError.validation(issues);
  return { paymentId: body.paymentId, amount: { currency, value: BigInt(amount.value) }, send: body.send === true };
}

async function lockedPayment(trx: Transaction<Database>, merchant: MerchantRow, paymentId: string) {
  const payment = await trx
    .selectFrom('payments')
    .selectAll()
    .where('id', '=', paymentId)
    .where('merchant_id', '=', merchant.id)
    .forUpdate()
    .executeTakeFirst();
  if (!payment) throw new ApiError('not_found', `Payment ${paymentId.slice(0, 64)} not found.`);
  return payment;
}

/** A new refund of the payment, made now; `fields` say what is refunded, how and to whom. */
function insertRefund(
  trx: Transaction<Database>,
  payment: PaymentRow,
  now: Date,
  fields: Omit<
    Insertable<RefundsTable>,
    'id' | 'partner_id' | 'merchant_id' | 'payment_id' | 'fiat_currency' | 'created_at' | 'updated_at'
  >,
) {
  return trx
    .insertInto('refunds')
    .values({
      id: newId('rfnd'),
      partner_id: payment.partner_id,
      merchant_id: payment.merchant_id,
      payment_id: payment.id,
      fiat_currency: payment.fiat_currency,
      created_at: now,
      updated_at: now,
      ...fields,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Sends one of the payment's exceptions back whole, on chain, to the account that sent it: once per exception (a
 * failed attempt may be asked for again), an underpaid amount only once the payment stopped waiting for the rest,
 * and only a token this service can send. The exception notes its refund.
 */
/**
 * Where a refund sent on chain goes: the sender of the exception it sends back, or the account that paid the payment.
 * Undefined when the payment has no such account or exception.
 */
function refundDestination(
  payment: Pick<PaymentRow, 'buyer_account' | 'exceptions'>,
  request: Pick<RefundRequest, 'exceptionId'>,
): string | undefined {
  if (request.exceptionId) return payment.exceptions.find((entry) => entry.id === request.exceptionId)?.from;
  return payment.buyer_account ?? undefined;
}

async function refundException(
  ctx: AppContext,
  trx: Transaction<Database>,
  payment: PaymentRow,
  exceptionId: string,
): Promise<StoredResponse> {
  const exception = payment.exceptions.find((entry) => entry.id === exceptionId);
  if (!exception) {
    throw new ApiError('not_found', `Exception ${exceptionId.slice(0, 64)} not found on payment ${payment.id}.`);
  }
  if (exception.acceptedAt) {
    throw new ApiError(
      'invalid_state',
      `Exception ${exceptionId} was accepted as the payment; refund the payment itself (no exceptionId) instead.`,
    );
  }
  // Until the payment is final, what arrived may still pay it (a transfer seen above depth holds it processing).
  if (exception.type === 'underpaid' && !isTerminal(effectiveStatus(payment, ctx.clock.now()))) {
    throw new ApiError(
      'invalid_state',
      `Payment ${payment.id} still waits for the rest of its amount; what it received can be sent back once it fails.`,
    );
  }
  const open = await trx
    .selectFrom('refunds')
    .select('id')
    .where('exception_id', '=', exceptionId)
    .where('status', '<>', 'failed')
    .executeTakeFirst();
  if (open) throw new ApiError('already_refunded', `Exception ${exceptionId} is sent back by ${open.id}.`);
  if (!ctx.chains.token(exception.asset)) {
    throw new ApiError(
      'refund_not_sendable',
      `Exception ${exceptionId} is a token this service does not list; the operator recovers it from the deposit address.`,
    );
  }
  const now = ctx.clock.now();
  const refund = await insertRefund(trx, payment, now, {
    method: 'onchain',
    status: 'pending',
    fiat_value: 0n,
    token_asset: exception.asset,
    token_value: exception.amount,
    destination: exception.from,
    exception_id: exceptionId,
    completed_at: null,
  });
  await payRefundFromOwner(trx, refund);
  const exceptions = payment.exceptions.map((entry) =>
    entry.id === exceptionId ? { ...entry, refundId: refund.id } : entry,
  );
  await trx
    .updateTable('payments')
    .set({ exceptions: JSON.stringify(exceptions), updated_at: now })
    .where('id', '=', payment.id)
    .execute();
  const object = toRefundView(refund);
  await recordEvent(trx, {
    partnerId: refund.partner_id,
    merchantId: refund.merchant_id,
    object,
    type: 'refund.created',
  });
  return { status: 200, body: JSON.stringify(object) };
}

/**
 * An on-chain refund is paid from its owner's account as it is made (the merchant's, or for an exception what its
 * buyers are owed), never from what the collector holds for others: refused, with the shortfall, when that account
 * holds too little. A refund of a settled payment is so paid from what the merchant is owed of later payments.
 */
async function payRefundFromOwner(trx: Transaction<Database>, refund: Selectable<RefundsTable>) {
  const asset = refund.token_asset as string;
  try {
    await postPayoutDecided(trx, `refund:${refund.id}`, {
      owner: refundOwner(refund),
      asset,
      amount: BigInt(refund.token_value ?? '0'),
    });
  } catch (error) {
    if (!(error instanceof InsufficientBalanceError)) throw error;
    const units = (value: bigint) => ({ unit: `caip19/${asset}`, value: value.toString() });
    const whose = refund.exception_id === null ? 'The merchant' : "The exception's buyers";
    throw new ApiError(
      'insufficient_balance',
      `${whose} hold ${error.balance} of ${asset} in the collector, ${error.shortfall} short of the ${error.needed} ` +
        'this refund sends: it is paid from what the merchant is owed, not from the collector at large. Refund it ' +
        'once later payments cover it, or record a refund made some other way (no send).',
      { balance: units(error.balance), needed: units(error.needed), shortfall: units(error.shortfall) },
    );
  }
}

async function refundedSoFar(trx: Transaction<Database>, paymentId: string) {
  const totals = await trx
    .selectFrom('refunds')
    .select([
      sql<string>`coalesce(sum(fiat_value), 0)::text`.as('fiat'),
      sql<string>`coalesce(sum(token_value), 0)::text`.as('token'),
    ])
    .where('payment_id', '=', paymentId)
    .where('status', '<>', 'failed')
    .where('exception_id', 'is', null)
    .executeTakeFirstOrThrow();
  return { fiat: BigInt(totals.fiat), token: BigInt(totals.token) };
}

/**
 * Records a refund of a succeeded payment, in one transaction with the payment's row locked so two refunds at once
 * cannot together exceed what was paid. A recorded refund is final at once; an on-chain one is pending until the
 * refund sender's transfer is final.
 */
async function createRefund(
  ctx: AppContext,
  trx: Transaction<Database>,
  merchant: MerchantRow,
  request: RefundRequest,
): Promise<StoredResponse> {
  const payment = await lockedPayment(trx, merchant, request.paymentId);
  if (request.exceptionId) return refundException(ctx, trx, payment, request.exceptionId);
  if (payment.status !== 'succeeded') {
    throw new ApiError(
      'payment_not_succeeded',
      `Payment ${payment.id} is ${payment.status}; only a succeeded payment can be refunded.`,
    );
  }
  const paid = {
    fiat: BigInt(payment.fiat_value),
    token: payment.token_value === null ? null : BigInt(payment.token_value),
  };
  const refunded = await refundedSoFar(trx, payment.id);
  const refundable = refundableFiat(paid, refunded);
  if (refundable === 0n) throw new ApiError('already_refunded', `Payment ${payment.id} is refunded in full.`);
  if (request.amount && request.amount.currency !== payment.fiat_currency) {
    throw ApiError.validation([
      { field: 'amount.unit', message: `must be iso4217/${payment.fiat_currency}, the payment's currency` },
    ]);
  }
  const fiat = request.amount?.value ?? refundable;
  if (fiat > refundable) {
    throw new ApiError(
      'refund_exceeds_payment',
      `At most ${refundable} minor units of ${payment.fiat_currency} can still be refunded.`,
      {
        refundable: { unit: `iso4217/${payment.fiat_currency}`, value: refundable.toString() },
      },
    );
  }
  if (request.send && (!payment.token_asset || !payment.buyer_account || !ctx.chains.token(payment.token_asset))) {
    throw new ApiError(
      'refund_not_sendable',
      `Payment ${payment.id} was not paid in a token this service can send back.`,
    );
  }
  const now = ctx.clock.now();
  const refund = await insertRefund(trx, payment, now, {
    method: request.send ? 'onchain' : 'recorded',
    status: request.send ? 'pending' : 'succeeded',
    fiat_value: fiat,
    token_asset: payment.token_asset,
    token_value: tokenAmountOfRefund(paid, refunded, fiat),
    destination: request.send ? (refundDestination(payment, {}) ?? null) : null,
    completed_at: request.send ? null : now,
  });
  if (refund.method === 'onchain') await payRefundFromOwner(trx, refund);
  const object = toRefundView(refund);
  const event = { partnerId: refund.partner_id, merchantId: refund.merchant_id, object };
  await recordEvent(trx, { ...event, type: 'refund.created' });
  if (refund.status === 'succeeded') await recordEvent(trx, { ...event, type: 'refund.succeeded' });
  return { status: 200, body: JSON.stringify(object) };
}

/**
 * Screens where a refund sent on chain would go (the payer, or the sender of the exception sent back) before any
 * transaction opens: the provider may be a service across the network. A payment of another merchant, or one without
 * a payer, is left to the refund's own checks.
 */
async function screenRefundDestination(ctx: AppContext, merchantId: string, request: RefundRequest): Promise<void> {
  if (!ctx.screening.enabled) return;
  const payment = await ctx.db
    .selectFrom('payments')
    .select(['buyer_account', 'exceptions'])
    .where('id', '=', request.paymentId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  const destination = payment && refundDestination(payment, request);
  if (destination)
    await ctx.screening.check('refund_destination', [destination], { paymentId: request.paymentId, merchantId });
}

async function handleCreateRefund(
  ctx: AppContext,
  request: FastifyRequest,
  body: CreateRefundBody,
  reply: FastifyReply,
) {
  // Read before any transaction opens: a request must never hold one pooled connection while waiting for another.
  const merchant = await merchantOfRequest(ctx, request);
  const understood = understoodRequest(body);
  if (understood.send) await screenRefundDestination(ctx, merchant.id, understood);
  const header = request.headers['idempotency-key'];
  const key = Array.isArray(header) ? header[0] : header;
  const response = key
    ? await runIdempotently(
        ctx.db,
        {
          partnerId: principalOf(request).partnerId,
          scope: `POST /v1/refunds ${merchant.id}`,
          key: key.slice(0, 255),
          fingerprint: {
            ...understood,
            amount: understood.amount && { ...understood.amount, value: `${understood.amount.value}` },
          },
        },
        (trx) => createRefund(ctx, trx, merchant, understood),
      )
    : await ctx.db.transaction().execute((trx) => createRefund(ctx, trx, merchant, understood));
  if (understood.send && !response.replayed) ctx.refunds?.soon();
  return sendStoredResponse(reply, response);
}

export function registerCreateRefund(app: App, ctx: AppContext): void {
  app.post(
    '/v1/refunds',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['refunds'],
        summary: 'Refund a succeeded payment, whole or in part',
        description:
          'Without `send`, marks the payment as refunded by the merchant (the money went back some other way). ' +
          'With `send: true`, the service sends the paid token back to the paying account from the collector and ' +
          "takes it from the merchant's balance (what it is owed and not settled yet); when that holds too little " +
          'the refund is refused (409 `insufficient_balance`, with the shortfall). Refunds never add up to more than ' +
          'was paid; fees are not returned.',
        headers: Type.Intersect([
          MerchantIdHeader,
          Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
        ]),
        body: CreateRefundBody,
        response: { 200: Refund, ...errorResponses(404, 409) },
      },
    },
    (request, reply) => handleCreateRefund(ctx, request, request.body, reply),
  );
}
