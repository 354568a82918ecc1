import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { gatewayPaymentOf, chainServicesOf, merchantTakingPayments, requirePayable } from './gatewayPayment.ts';
import { GatewayPaymentParams, WalletRpcActionSchema } from './gatewaySchemas.ts';
import { offeredOption, requireLiveQuote } from './optionLookup.ts';
import { paymentMethodOf } from '../paymentMethods/registry.ts';

const FetchBody = Type.Object({
  optionId: Type.String({ maxLength: 64 }),
  data: Type.String({ maxLength: 1000, description: 'The data of the build action' }),
});

export function registerFetchPaymentActions(app: App, ctx: AppContext): void {
  app.post(
    '/v1/gateway/payment/:id/fetch',
    {
      config: { auth: { scope: 'gateway', allowApp: true }, rateLimit: 'perPayment' },
      schema: {
        tags: ['gateway'],
        summary: 'Resolve a build action into wallet actions',
        description:
          'For a Solana option: builds the transfer with a fresh blockhash and returns one solana_signTransaction. Fetching again builds a new transaction, and only the latest one can be confirmed; once a confirm is accepted, fetch answers 400 invalid_state. The payment of a merchant that is deleted, inactive or suspended answers 403 merchant_not_active.',
        params: GatewayPaymentParams,
        body: FetchBody,
        response: {
          200: Type.Object({ actions: Type.Array(WalletRpcActionSchema) }),
          ...errorResponses(404, 409, 410, 502),
        },
      },
    },
    async (request) => {
      const payment = await gatewayPaymentOf(ctx, request.params.id);
      requirePayable(payment, ctx.clock.now());
      await merchantTakingPayments(ctx, payment);
      const confirmed = await ctx.db
        .selectFrom('payment_confirmations')
        .select('payment_id')
        .where('payment_id', '=', payment.id)
        .executeTakeFirst();
      if (confirmed)
        throw new ApiError('invalid_state', 'The payment has been confirmed; nothing can be built for it any more.');
      const option = await offeredOption(ctx.db, payment.id, request.body.optionId);
      requireLiveQuote(option, ctx.clock.now());
      const method = paymentMethodOf(option.terms);
      const buildAction = option.actions.some(
        (action) => action.type === 'build' && action.data.data === request.body.data,
      );
      if (!method.build || !buildAction) {
        throw ApiError.validation([
          { field: 'data', message: "is not the data of one of this option's build actions" },
        ]);
      }
      const { terms, actions } = await method.build(chainServicesOf(ctx), option, payment.id);
      await ctx.db
        .updateTable('payment_options')
        .set({ terms: JSON.stringify(terms) })
        .where('id', '=', option.id)
        .execute();
      return { actions };
    },
  );
}
