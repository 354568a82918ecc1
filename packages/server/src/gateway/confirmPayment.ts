import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { App, AppContext } from '../context.ts';
import { principalOf } from '../http/auth.ts';
import { partnerNameOf } from '../partners/partners.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import type { PaymentRow } from '../payments/paymentResource.ts';
import { noteRefusedTransfer } from './refusedTransfers.ts';
import { MAX_LONG_POLL_MS } from '../payments/statusWaiter.ts';
import {
  type BuyerProvider,
  checkAlignment,
  claimPayment,
  earlierConfirmation,
  verifyResults,
} from './confirmation.ts';
import {
  GatewayStatusView,
  gatewayPaymentOf,
  chainServicesOf,
  merchantTakingPayments,
  requirePayable,
  statusAfterLongPoll,
} from './gatewayPayment.ts';
import { GatewayPaymentParams } from './gatewaySchemas.ts';
import { offeredOption, requireLiveQuote } from './optionLookup.ts';
import { requireBuyerData } from './dataCollection/buyerData.ts';

const ConfirmBody = Type.Object({
  optionId: Type.String({ maxLength: 64 }),
  results: Type.Array(
    Type.Object({
      type: Type.Literal('walletRpc'),
      data: Type.Array(Type.String({ maxLength: 20_000 }), { maxItems: 10 }),
    }),
    { maxItems: 10, description: "One per action of the option, in the option's order" },
  ),
  collectedData: Type.Optional(
    Nullable(
      Type.Object(
        {
          fields: Type.Array(Type.Object({ id: Type.String({ maxLength: 64 }), value: Type.Unknown() }), {
            maxItems: 20,
          }),
        },
        {
          description:
            "Buyer data per the option's collectData.schema, when the wallet built its own form instead of showing collectData.url; null is the same as leaving it out",
        },
      ),
    ),
  ),
});

const ConfirmQuery = Type.Object(
  {
    maxPollMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: `Hold the request until the status changes, at most this long (capped at ${MAX_LONG_POLL_MS} ms)`,
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The wallet app a buyer confirmed from, named on the payment (D2, D9); a partner's own backend confirming with its
 * API key is the wallet itself, named by the partner's name.
 */
async function providerOf(ctx: AppContext, request: FastifyRequest): Promise<BuyerProvider> {
  const principal = principalOf(request);
  if (principal.kind !== 'app') return { name: (await partnerNameOf(ctx.db, principal.partnerId)) ?? null, icon: null };
  const app = await ctx.db
    .selectFrom('apps')
    .select(['name', 'icon_url'])
    .where('id', '=', principal.appId)
    .executeTakeFirst();
  return { name: app?.name ?? null, icon: app?.icon_url ?? null };
}

export function registerConfirmPayment(app: App, ctx: AppContext): void {
  app.post(
    '/v1/gateway/payment/:id/confirm',
    {
      config: { auth: { scope: 'gateway', allowApp: true }, rateLimit: 'perPayment' },
      schema: {
        tags: ['gateway'],
        summary: 'Pay with an option: submit the results of its actions',
        description:
          'The results are checked against exactly what the option offered and against the chain, then submitted; the payment becomes processing, then succeeded or failed. A refused confirm leaves the payment payable. Repeating the same confirm returns the current status and submits nothing again. The payment of a merchant that is deleted, inactive or suspended answers 403 merchant_not_active. A confirm whose transaction the service would send (a relayed authorisation or permit, a sponsored Solana transfer) while the operator has not funded the fees on that network answers 503 service_unavailable with details.reason network_fee_unfunded; the payment stays payable. With address screening on, a payer the screening blocks answers 403 account_blocked and nothing is sent.',
        params: GatewayPaymentParams,
        querystring: ConfirmQuery,
        body: ConfirmBody,
        response: { 200: GatewayStatusView, ...errorResponses(404, 409, 410, 502, 503) },
      },
    },
    async (request) => {
      const { optionId, results } = request.body;
      const payment = await gatewayPaymentOf(ctx, request.params.id);
      // Value a refused confirm's results moved into the collector is still the sender's: it is noted, never lost.
      return confirm(ctx, request, payment).catch(async (error: unknown) => {
        await noteRefusedTransfer(ctx, request.log, payment.id, optionId, results, error);
        throw error;
      });
    },
  );
}

/**
 * Checks a confirm and claims the payment with it. A refusal leaves the payment payable; the caller notes what the
 * refused results moved into the collector.
 */
type ConfirmRequest = FastifyRequest & { body: typeof ConfirmBody.static; query: typeof ConfirmQuery.static };

async function confirm(ctx: AppContext, request: ConfirmRequest, payment: PaymentRow) {
  const { optionId, results } = request.body;
  const waiter = ctx.statusWaiter;
  const earlier = await earlierConfirmation(ctx, payment.id, optionId, results);
  if (earlier === 'repeated') return statusAfterLongPoll(ctx, waiter, payment, payment.status, request.query.maxPollMs);
  if (earlier === 'taken')
    throw new ApiError('invalid_state', 'Another confirmation of this payment was accepted already.', {
      status: payment.status,
    });
  requirePayable(payment, ctx.clock.now());
  await merchantTakingPayments(ctx, payment);

  const option = await offeredOption(ctx.db, payment.id, optionId);
  requireLiveQuote(option, ctx.clock.now());
  checkAlignment(option, results);
  await requireBuyerData(ctx, payment, option, request.body.collectedData ?? undefined);
  const check = await verifyResults(chainServicesOf(ctx), ctx.chains, option, results, ctx.clock.now());
  // The results proved the option's account is the payer: screened before anything is claimed or sent.
  await ctx.screening.check('confirm', [option.account], { paymentId: payment.id, merchantId: payment.merchant_id });

  const provider = await providerOf(ctx, request);
  const claim = await claimPayment(ctx, payment.id, option, results, provider);
  if (claim === 'taken')
    throw new ApiError('invalid_state', 'Another confirmation of this payment was accepted already.');
  if (claim === 'not_payable') requirePayable(await gatewayPaymentOf(ctx, payment.id), ctx.clock.now());
  if (typeof claim === 'object') ctx.submissions?.soon(payment.id, check);
  const current = typeof claim === 'object' ? claim.claimed : await gatewayPaymentOf(ctx, payment.id);
  return statusAfterLongPoll(ctx, waiter, current, 'processing', request.query.maxPollMs);
}
