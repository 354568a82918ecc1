import { Type } from '@sinclair/typebox';
import { type AccountId, parseAccountId } from '../chains/caip.ts';
import type { App, AppContext } from '../context.ts';
import { ApiError, type Issue } from '../http/errors.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { gatewayPaymentOf, chainServicesOf, merchantTakingPayments, requirePayable } from './gatewayPayment.ts';
import { CollectDataSchema, GatewayPaymentParams, PaymentOptionSchema } from './gatewaySchemas.ts';
import { GatewayPaymentView, toGatewayPaymentView } from './getGatewayPayment.ts';
import { offerOptions } from './paymentOptions.ts';
import { buyerDataRequest } from './dataCollection/buyerData.ts';

const OptionsBody = Type.Object({
  accounts: Type.Array(Type.String({ maxLength: 200 }), {
    minItems: 1,
    maxItems: 20,
    description: 'CAIP-10 accounts of the buyer',
  }),
  refresh: Type.Optional(
    Nullable(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 100,
        description: 'Options whose quotes to refresh; null is the same as leaving it out',
      }),
    ),
  ),
});

const OptionsQuery = Type.Object(
  { includePaymentInfo: Type.Optional(Type.Boolean({ description: 'Add the payment details to the response' })) },
  { additionalProperties: false },
);

const OptionsResponse = Type.Object({
  options: Type.Array(PaymentOptionSchema),
  collectData: Nullable(CollectDataSchema),
  info: Type.Optional({
    ...GatewayPaymentView,
    description: 'With includePaymentInfo=true: the payment, as GET /v1/gateway/payment/{id} answers it',
  }),
  paymentInfo: Type.Optional({ ...GatewayPaymentView, description: 'Deprecated: the same as info' }),
});

// Any CAIP-10 account; only the eip155 and solana namespaces are understood, others are ignored.
const CAIP10 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}:[-.%a-zA-Z0-9]{1,128}$/;

/** The accounts this service can take payment from; a malformed account is a validation error. */
function payableAccounts(ctx: AppContext, accounts: string[]): AccountId[] {
  const issues: Issue[] = [];
  const payable: AccountId[] = [];
  accounts.forEach((account, index) => {
    const namespace = account.slice(0, account.indexOf(':'));
    const known = namespace === 'eip155' || namespace === 'solana';
    const parsed = known ? parseAccountId(account) : undefined;
    if (!CAIP10.test(account) || (known && !parsed)) {
      issues.push({ field: `accounts.${index}`, message: 'must be a CAIP-10 account id with a valid address' });
    } else if (parsed && ctx.chains.network(parsed.caip2) && !payable.some((seen) => seen.caip10 === parsed.caip10)) {
      payable.push(parsed);
    }
  });
  if (issues.length) throw ApiError.validation(issues);
  return payable;
}

/** The payment under `info`, as WalletConnect Pay names it, and under `paymentInfo`, as earlier answers did. */
function paymentInfoOf(
  ctx: AppContext,
  payment: Parameters<typeof toGatewayPaymentView>[0],
  merchant: Parameters<typeof toGatewayPaymentView>[1],
) {
  const info = toGatewayPaymentView(payment, merchant, ctx.config.baseUrl, ctx.clock.now());
  return { info, paymentInfo: info };
}

export function registerGetPaymentOptions(app: App, ctx: AppContext): void {
  app.post(
    '/v1/gateway/payment/:id/options',
    {
      config: { auth: { scope: 'gateway', allowApp: true }, rateLimit: 'perPayment' },
      schema: {
        tags: ['gateway'],
        summary: 'The ways the given accounts can pay the payment',
        description:
          'One option per account and token the account holds enough of, on every configured chain of its namespace; each call quotes afresh. Accounts on other chains are ignored. The payment of a merchant that is deleted, inactive or suspended answers 403 merchant_not_active. With address screening on, an account the screening blocks answers 403 account_blocked (details.account names it), and a screening provider that cannot answer 503 service_unavailable with details.reason screening_unavailable, unless the operator lets payments go on unscreened.',
        params: GatewayPaymentParams,
        querystring: OptionsQuery,
        body: OptionsBody,
        response: { 200: OptionsResponse, ...errorResponses(404, 410, 502, 503) },
      },
    },
    async (request) => {
      const payment = await gatewayPaymentOf(ctx, request.params.id);
      const accounts = payableAccounts(ctx, request.body.accounts);
      requirePayable(payment, ctx.clock.now());
      const merchant = await merchantTakingPayments(ctx, payment);
      await ctx.screening.check(
        'options',
        accounts.map((account) => account.caip10),
        { paymentId: payment.id, merchantId: payment.merchant_id },
      );
      const buyerData = await buyerDataRequest(ctx, payment);
      const options = accounts.length
        ? await offerOptions(ctx.db, ctx.chains, chainServicesOf(ctx), payment, accounts, buyerData)
        : [];
      return {
        options,
        collectData: buyerData?.paymentForm ?? null,
        ...(request.query.includePaymentInfo ? paymentInfoOf(ctx, payment, merchant) : {}),
      };
    },
  );
}
