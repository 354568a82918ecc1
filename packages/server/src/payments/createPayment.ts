import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Insertable, Transaction } from 'kysely';
import type { Database, PaymentOrigin, PaymentsTable } from '../db/schema.ts';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError, type Issue } from '../http/errors.ts';
import { claimWithAnswer, type IdempotentRequest, runIdempotently, type StoredResponse } from '../http/idempotency.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { versionHas } from '../http/versions.ts';
import { sendStoredResponse } from '../http/storedResponse.ts';
import { newId } from '../ids.ts';
import { type CurrencyFees, feesStillAre, minimumAmountUnder, RememberedFees } from '../settlement/feeSchedules.ts';
import { currencyOfUnit, formatMinorUnits } from '@paygate/client/money';
import { fiatCurrency } from './currencies.ts';
import { liveMerchantOfRequest, MerchantIdHeader, requireMerchantIdHeader } from './merchantHeader.ts';
import type { MerchantRow, PaymentRow } from './paymentResource.ts';
import { merchantPaymentStatusName, pollHintMs } from './stateMachine.ts';
import { announcedColumns, announceWritten, insertAnnouncedPayment } from './transitions.ts';

const DEFAULT_LIFETIME_S = 15 * 60;
const MIN_LIFETIME_S = 60;
const MAX_LIFETIME_S = 24 * 60 * 60;

const Amount = Type.Object(
  {
    unit: Type.String({ maxLength: 16, description: '`iso4217/<CODE>`, e.g. `iso4217/USD`' }),
    value: Type.String({
      maxLength: 32,
      description: 'Positive integer in the currency minor units, e.g. `1000` for 10.00 USD',
    }),
  },
  { additionalProperties: false },
);

const ReferenceId = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x20-\\x7E]+$',
  description: 'Your id for the payment; unique per merchant',
});
const ExpiresAt = Nullable(
  Type.Integer({ description: 'Unix seconds, 60 s to 24 h ahead; default 15 minutes; null is the same as absent' }),
);

/** Where the checkout page sends the buyer once the payment is final; null is the same as leaving it out. */
function checkoutRedirects(description: string) {
  return Type.Optional(
    Nullable(
      Type.Object(
        {
          successUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'After success' })),
          errorUrl: Type.Optional(
            Type.String({ maxLength: 2048, description: 'After failure, expiry or cancellation' }),
          ),
        },
        { additionalProperties: false, description },
      ),
    ),
  );
}

const CheckoutBody = Type.Object(
  {
    amount: Amount,
    referenceId: ReferenceId,
    expiresAt: Type.Optional(ExpiresAt),
    checkout: checkoutRedirects('Used only when both are HTTPS; otherwise the checkout page shows its own final views'),
  },
  { additionalProperties: false },
);
const PaymentsBody = Type.Object(
  {
    amount: Amount,
    referenceId: ReferenceId,
    expiresAt: Type.Optional(ExpiresAt),
    checkout: checkoutRedirects(
      'From 2026-02-19.preview: both HTTPS URLs, else 400 params_validation; ignored in 2026-02-18',
    ),
  },
  { additionalProperties: false },
);

const CreatedPayment = Type.Object({
  paymentId: Type.String(),
  gatewayUrl: Type.String({ description: 'Checkout link for the buyer' }),
  status: Type.String(),
  expiresAt: Type.Integer({ description: 'Unix seconds' }),
  isFinal: Type.Boolean(),
  pollInMs: Type.Optional(Type.Integer()),
});

type CreateBody = Static<typeof CheckoutBody>;

function httpsUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value).protocol === 'https:' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The create as the request's version understands it: `expiresAt: null` is not given, and `POST /v1/payments`
 * ignores `checkout` before 2026-02-19.preview. A replay that differs only there is the same request.
 */
function understoodBody(body: CreateBody, family: 'checkout' | 'payments', version: string): CreateBody {
  const { expiresAt, checkout, ...rest } = body;
  const takesCheckout = family === 'checkout' || versionHas(version, 'payment-checkout-redirects');
  return {
    ...rest,
    ...(expiresAt === undefined || expiresAt === null ? {} : { expiresAt }),
    ...(checkout && takesCheckout ? { checkout } : {}),
  };
}

/**
 * The redirects stored with the payment. `/v1/merchant/payment` keeps them only when both are HTTPS and otherwise
 * lets the checkout page show its own final views (interface); `POST /v1/payments` refuses a pair that is not.
 */
function redirectsOf(
  checkout: CreateBody['checkout'],
  family: 'checkout' | 'payments',
): { success_url?: string; error_url?: string } {
  if (family === 'payments' && checkout) {
    const issues = (['successUrl', 'errorUrl'] as const)
      .filter((field) => !httpsUrl(checkout[field]))
      .map((field) => ({
        field: `checkout.${field}`,
        message: checkout[field] === undefined ? 'is required with checkout' : 'must be an absolute HTTPS URL',
      }));
    if (issues.length) throw ApiError.validation(issues);
  }
  const successUrl = httpsUrl(checkout?.successUrl);
  const errorUrl = httpsUrl(checkout?.errorUrl);
  return successUrl && errorUrl ? { success_url: successUrl, error_url: errorUrl } : {};
}

/** Checks the amount against its currency (D8): a known ISO 4217 code, a positive integer of minor units. */
function validatedAmount(amount: CreateBody['amount']): { currency: string; value: bigint } {
  const issues: Issue[] = [];
  const code = currencyOfUnit(amount.unit);
  if (!code || !fiatCurrency(code))
    issues.push({ field: 'amount.unit', message: 'must be iso4217/ followed by a known ISO 4217 currency code' });
  if (!/^[1-9][0-9]{0,17}$/.test(amount.value)) {
    issues.push({
      field: 'amount.value',
      message: 'must be a positive whole number of minor units (e.g. "1000" for 10.00 USD), at most 18 digits',
    });
  }
  if (issues.length) throw ApiError.validation(issues);
  return { currency: code as string, value: BigInt(amount.value) };
}

/** The expiry a create asks for, unchecked: `expiresAt`, or the default lifetime from now. */
function requestedExpiry(expiresAt: number | null | undefined, now: Date): Date {
  const nowS = Math.floor(now.getTime() / 1000);
  return new Date((expiresAt ?? nowS + DEFAULT_LIFETIME_S) * 1000);
}

function validatedExpiry(expiresAt: number | null | undefined, now: Date): Date {
  const nowS = Math.floor(now.getTime() / 1000);
  if (expiresAt === undefined || expiresAt === null) return requestedExpiry(expiresAt, now);
  if (expiresAt < nowS + MIN_LIFETIME_S || expiresAt > nowS + MAX_LIFETIME_S) {
    throw ApiError.validation([
      { field: 'expiresAt', message: 'must be unix seconds between 60 seconds and 24 hours from now' },
    ]);
  }
  return new Date(expiresAt * 1000);
}

/** A payment must cover its partner's fixed fee in its currency. */
function requireMinimumAmount(fees: CurrencyFees, amount: { currency: string; value: bigint }): void {
  const minimum = minimumAmountUnder(fees);
  if (amount.value >= minimum) return;
  const decimals = fiatCurrency(amount.currency)?.decimals ?? 2;
  throw ApiError.validation(
    [
      {
        field: 'amount.value',
        message: `must be at least ${minimum} (${formatMinorUnits(minimum, decimals)} ${amount.currency}) to cover the fees`,
      },
    ],
    `The amount is below the minimum of ${formatMinorUnits(minimum, decimals)} ${amount.currency} that covers the partner's fixed fee.`,
  );
}

/** The create answer, in the status names of the route family that was called. */
function createdResponse(
  ctx: AppContext,
  payment: Pick<PaymentRow, 'id' | 'status' | 'expires_at'>,
  status: number,
  family: 'checkout' | 'payments',
): StoredResponse {
  const pollInMs = pollHintMs(payment.status);
  return {
    status,
    body: JSON.stringify({
      paymentId: payment.id,
      gatewayUrl: `${ctx.config.checkoutUrl}/${payment.id}`,
      status: family === 'checkout' ? merchantPaymentStatusName(payment.status) : payment.status,
      expiresAt: Math.floor(payment.expires_at.getTime() / 1000),
      isFinal: pollInMs === undefined,
      ...(pollInMs === undefined ? {} : { pollInMs }),
    }),
  };
}

/**
 * Creates a payment for a merchant (D8). The referenceId is idempotent per merchant: the same referenceId and
 * amount return the existing payment (200), another amount is 409. Concurrent creates race on the unique
 * (merchant, referenceId) index, so exactly one payment is made. The expiry sweep (`expiry.ts`) expires it when
 * it is still unpaid at `expiresAt`.
 */
async function createPayment(
  ctx: AppContext,
  trx: Transaction<Database>,
  merchant: MerchantRow,
  body: CreateBody,
  planned: PlannedPayment,
): Promise<StoredResponse> {
  const { now, family } = planned;
  // Checked here, inside the work: a replay of a create answers its stored response, whatever time it comes.
  const amount = validatedAmount(body.amount);
  const expiresAt = validatedExpiry(body.expiresAt, now);
  requireMinimumAmount(await planned.fees.read(trx, merchant.partner_id, amount.currency), amount);
  const { payment, created } = await insertPayment(ctx, trx, merchant, now, {
    id: planned.id,
    reference_id: body.referenceId,
    fiat_currency: amount.currency,
    fiat_value: amount.value,
    expires_at: expiresAt,
    ...redirectsOf(body.checkout, family),
  });
  return createdResponse(ctx, payment, created ? 201 : 200, family);
}

/** A payment the service makes for a merchant without a partner's call. */
export interface MerchantPaymentRequest {
  amount: { currency: string; value: bigint };
  referenceId: string;
  origin: PaymentOrigin;
  paymentLinkId?: string;
  /** Default: 15 minutes from now. */
  expiresAt?: Date;
}

/**
 * Makes a payment for `merchant` in `trx` as a create through the API does (the fee minimum, the `payment.created`
 * event): for a payment link's visit or a point of sale. The same referenceId and amount return the payment made
 * before (`created: false`); another amount is 409 `idempotency_conflict`.
 */
export async function createMerchantPayment(
  ctx: AppContext,
  trx: Transaction<Database>,
  merchant: MerchantRow,
  request: MerchantPaymentRequest,
  fees: RememberedFees,
): Promise<{ payment: PaymentRow; created: boolean }> {
  const now = ctx.clock.now();
  requireMinimumAmount(await fees.read(trx, merchant.partner_id, request.amount.currency), request.amount);
  return insertPayment(ctx, trx, merchant, now, {
    id: newId('pay'),
    reference_id: request.referenceId,
    fiat_currency: request.amount.currency,
    fiat_value: request.amount.value,
    expires_at: request.expiresAt ?? requestedExpiry(undefined, now),
    origin: request.origin,
    ...(request.paymentLinkId ? { payment_link_id: request.paymentLinkId } : {}),
  });
}

type NewPaymentColumns = Pick<Insertable<PaymentsTable>, 'id' | 'reference_id' | 'fiat_currency' | 'expires_at'> &
  Partial<Pick<Insertable<PaymentsTable>, 'success_url' | 'error_url' | 'origin' | 'payment_link_id'>> & {
    fiat_value: bigint;
  };

/**
 * Writes the payment and its `payment.created` event. The referenceId is idempotent per merchant: concurrent creates
 * race on the unique (merchant, referenceId) index, so exactly one payment is made; the others get it
 * (`created: false`) when they ask for the same amount, 409 otherwise.
 */
async function insertPayment(
  ctx: AppContext,
  trx: Transaction<Database>,
  merchant: MerchantRow,
  now: Date,
  columns: NewPaymentColumns,
): Promise<{ payment: PaymentRow; created: boolean }> {
  const inserted = await trx
    .insertInto('payments')
    .values({
      ...columns,
      partner_id: merchant.partner_id,
      merchant_id: merchant.id,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) => conflict.columns(['merchant_id', 'reference_id']).doNothing())
    .returningAll()
    .returning(announcedColumns())
    .executeTakeFirst();
  if (!inserted) {
    const existing = await trx
      .selectFrom('payments')
      .selectAll()
      .where('merchant_id', '=', merchant.id)
      .where('reference_id', '=', columns.reference_id)
      .executeTakeFirstOrThrow();
    if (existing.fiat_currency !== columns.fiat_currency || BigInt(existing.fiat_value) !== columns.fiat_value) {
      throw new ApiError('idempotency_conflict', 'A payment with this referenceId and another amount already exists.', {
        paymentId: existing.id,
      });
    }
    return { payment: existing, created: false };
  }
  const payment = await announceWritten(
    trx,
    { chains: ctx.chains, baseUrl: ctx.config.baseUrl, now },
    inserted,
    'payment.created',
  );
  return { payment, created: true };
}

/** The id and time of the payment a create makes, chosen before it is made, so its answer is known beforehand. */
interface PlannedPayment {
  id: string;
  now: Date;
  family: 'checkout' | 'payments';
  /** The partners' fees as this process last read them. */
  fees: RememberedFees;
}

/** The payment a create writes, every column as the database will hold it. */
function newPaymentRow(
  merchant: MerchantRow,
  body: CreateBody,
  planned: PlannedPayment,
  checked: { amount: { currency: string; value: bigint }; expiresAt: Date; redirects: ReturnType<typeof redirectsOf> },
): PaymentRow {
  return {
    id: planned.id,
    partner_id: merchant.partner_id,
    merchant_id: merchant.id,
    reference_id: body.referenceId,
    status: 'requires_action',
    failure_code: null,
    fiat_currency: checked.amount.currency,
    fiat_value: checked.amount.value.toString(),
    success_url: checked.redirects.success_url ?? null,
    error_url: checked.redirects.error_url ?? null,
    expires_at: checked.expiresAt,
    token_asset: null,
    token_symbol: null,
    network: null,
    token_value: null,
    buyer_account: null,
    buyer_provider_name: null,
    buyer_provider_icon: null,
    tx_hash: null,
    tx_nonce: null,
    fee_total: null,
    fee_fixed: null,
    fee_percentage: null,
    settlement_amount: null,
    settlement_tx_hash: null,
    settled_at: null,
    settlement_batch_id: null,
    exceptions: [],
    expiry_awaits_follower: false,
    source: 'api',
    origin: null,
    payment_link_id: null,
    created_at: planned.now,
    updated_at: planned.now,
  };
}

/** A statement refused because an `Idempotency-Key` it claims is taken, or still being taken by another request. */
function isKeyTaken(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === '23505' || code === '55P03';
}

/**
 * The usual create, a new payment whose partner's fees this process knows, in one statement without a transaction
 * (`insertAnnouncedPayment`). Whatever else a create may meet (a body refused, an amount under the minimum, a
 * reference or key used before, fees or version changed meanwhile) is left to `createPayment`, in a transaction:
 * then this answers undefined, having written nothing.
 */
async function createInOneStatement(
  ctx: AppContext,
  merchant: MerchantRow,
  apiVersion: string,
  body: CreateBody,
  planned: PlannedPayment,
  idempotent?: IdempotentRequest & { key: string },
): Promise<StoredResponse | undefined> {
  const fees = planned.fees.get(merchant.partner_id, currencyOfUnit(body.amount.unit) ?? '');
  if (!fees) return undefined;
  let row: PaymentRow;
  try {
    const amount = validatedAmount(body.amount);
    requireMinimumAmount(fees, amount);
    const checked = {
      amount,
      expiresAt: validatedExpiry(body.expiresAt, planned.now),
      redirects: redirectsOf(body.checkout, planned.family),
    };
    row = newPaymentRow(merchant, body, planned, checked);
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
  const response = createdResponse(ctx, row, 201, planned.family);
  try {
    const written = await insertAnnouncedPayment(
      { db: ctx.db, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now: planned.now },
      row,
      merchant,
      { apiVersion, createdAt: planned.now },
      feesStillAre(merchant.partner_id, row.fiat_currency, fees),
      idempotent && ((when) => claimWithAnswer(idempotent, response, when)),
    );
    return written ? response : undefined;
  } catch (error) {
    if (idempotent && isKeyTaken(error)) return undefined;
    throw error;
  }
}

async function handleCreate(
  ctx: AppContext,
  fees: RememberedFees,
  request: FastifyRequest,
  body: CreateBody,
  reply: FastifyReply,
  family: 'checkout' | 'payments',
) {
  // Read before any transaction opens: a request must never hold one pooled connection while waiting for another.
  const merchant = await liveMerchantOfRequest(ctx, request);
  if (merchant.status !== 'active')
    throw new ApiError('forbidden', `Merchant ${merchant.id} is ${merchant.status} and cannot take payments.`);
  const understood = understoodBody(body, family, request.apiVersion ?? '');
  const planned: PlannedPayment = { id: newId('pay'), now: ctx.clock.now(), family, fees };
  const principal = principalOf(request);
  const header = request.headers['idempotency-key'];
  const key = Array.isArray(header) ? header[0] : header;
  const idempotent = key
    ? {
        partnerId: principal.partnerId,
        scope: `POST ${request.routeOptions.url} ${request.headers['merchant-id']}`,
        key: key.slice(0, 255),
        fingerprint: understood,
      }
    : undefined;
  const usual = await createInOneStatement(ctx, merchant, principal.pinnedVersion, understood, planned, idempotent);
  if (usual) return sendStoredResponse(reply, usual);
  if (!idempotent)
    return sendStoredResponse(
      reply,
      await ctx.db.transaction().execute((trx) => createPayment(ctx, trx, merchant, understood, planned)),
    );
  const response = await runIdempotently(
    ctx.db,
    idempotent,
    (trx) => createPayment(ctx, trx, merchant, understood, planned),
    // A new payment's answer, stored with the key's claim: the usual create then writes the key once.
    {
      anticipated: createdResponse(
        ctx,
        { id: planned.id, status: 'requires_action', expires_at: requestedExpiry(understood.expiresAt, planned.now) },
        201,
        family,
      ),
    },
  );
  return sendStoredResponse(reply, response);
}

const createSchema = (summary: string, body: typeof CheckoutBody | typeof PaymentsBody) => ({
  tags: ['payments'],
  summary,
  description:
    'Same referenceId and amount returns the existing payment with 200; another amount is 409 idempotency_conflict. An Idempotency-Key header is honoured too.',
  headers: Type.Intersect([
    MerchantIdHeader,
    Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
  ]),
  body,
  response: { 200: CreatedPayment, 201: CreatedPayment, ...errorResponses(404, 409) },
});

export function registerCreatePayment(app: App, ctx: AppContext): void {
  const fees = new RememberedFees();
  app.post(
    '/v1/merchant/payment',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: createSchema('Create a payment for the checkout page (unpaid status named `pending`)', CheckoutBody),
    },
    (request, reply) => handleCreate(ctx, fees, request, request.body, reply, 'checkout'),
  );
  app.post(
    '/v1/payments',
    {
      config: { auth: { scope: 'payments' } },
      onRequest: requireMerchantIdHeader,
      schema: createSchema('Create a payment', PaymentsBody),
    },
    (request, reply) => handleCreate(ctx, fees, request, request.body, reply, 'payments'),
  );
}
