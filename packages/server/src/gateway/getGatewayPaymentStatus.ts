import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import { LongPollQuery } from '../payments/getPaymentStatus.ts';
import { buyerFacingStatus } from '../payments/stateMachine.ts';
import { MAX_LONG_POLL_MS } from '../payments/statusWaiter.ts';
import { Type } from '@sinclair/typebox';
import {
  GatewayStatusView,
  StatusVersion,
  gatewayPaymentOf,
  gatewayStatusView,
  statusAfterLongPoll,
  statusVersion,
} from './gatewayPayment.ts';
import { GatewayPaymentParams } from './gatewaySchemas.ts';

const GatewayLongPollQuery = Type.Object(
  { ...LongPollQuery.properties, since: Type.Optional(StatusVersion) },
  { additionalProperties: false },
);

export function registerGetGatewayPaymentStatus(app: App, ctx: AppContext): void {
  const waiter = ctx.statusWaiter;
  app.get(
    '/v1/gateway/payment/:id/status',
    {
      config: { auth: { scope: 'gateway', allowApp: true } },
      schema: {
        tags: ['gateway'],
        summary: 'Payment status for the wallet, with long-poll',
        description:
          'With maxPollMs the response waits until the status changes (in any service process), at most 30 s. With `since` (a paygate extension: the `version` of the last status the caller saw), a change made before the request arrived answers it at once.',
        params: GatewayPaymentParams,
        querystring: GatewayLongPollQuery,
        response: { 200: GatewayStatusView, ...errorResponses(404) },
      },
    },
    async (request) => {
      const pollMs = Math.min(request.query.maxPollMs ?? 0, MAX_LONG_POLL_MS);
      // Registered before the read, so the read is all a long-poll needs until something changes.
      const readAfter = pollMs > 0 ? waiter.waitForChange(request.params.id, pollMs) : undefined;
      try {
        const payment = await gatewayPaymentOf(ctx, request.params.id);
        const { since } = request.query;
        if (since !== undefined && since !== statusVersion(payment, ctx.clock.now())) {
          return await gatewayStatusView(ctx, payment, ctx.clock.now());
        }
        const known = buyerFacingStatus(payment, ctx.clock.now());
        return await statusAfterLongPoll(ctx, waiter, payment, known, request.query.maxPollMs, readAfter);
      } finally {
        readAfter?.cancel();
      }
    },
  );
}
