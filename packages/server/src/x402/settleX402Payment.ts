import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { chainServicesOf } from '../gateway/gatewayPayment.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from '../payments/merchantHeader.ts';
import type { MerchantRow, PaymentRow } from '../payments/paymentResource.ts';
import { isTerminal } from '../payments/stateMachine.ts';
import { checkX402Payment, payerOf } from './checkX402Payment.ts';
import { reasonOfFailure, usedAlreadyReason, X402_REASONS, X402Refusal } from './reasons.ts';
import { merchantTakingX402 } from './x402Merchant.ts';
import {
  claimX402Payment,
  markAnsweredSucceeded,
  namespaceOf,
  releaseAnswerLease,
  sentTransactionOf,
  takeAnswerLease,
  type X402PaymentRow,
  x402PaymentOf,
} from './x402Payments.ts';
import { type CheckedX402Payment, requireTakenByMerchant } from './x402Requirements.ts';
import { FacilitatorRequest } from './x402Schemas.ts';

/**
 * A settle waits `X402_SETTLE_WAIT_MS` for its payment to be final (its transfer at the network's depth) before it
 * answers `settlement_pending`; x402's resource server then settles once more, and that settle waits for the same
 * payment again. The lease of the waiting settle outlives its wait by this much, so that a settle whose process died
 * is waited for no longer.
 */
const LEASE_MARGIN_MS = 5_000;

const SettleResponse = Type.Object(
  {
    success: Type.Boolean(),
    errorReason: Type.Optional(
      Type.String({ description: "x402's reason, e.g. invalid_exact_evm_nonce_already_used or permit2_invalid_nonce" }),
    ),
    errorMessage: Type.Optional(Type.String()),
    payer: Type.Optional(Type.String()),
    transaction: Type.String({ description: 'The hash of the transaction that paid; empty when none was sent' }),
    network: Type.String(),
    amount: Type.Optional(Type.String({ description: 'Token minor units settled: exactly the requirements amount' })),
    extra: Type.Optional(
      Type.Object({ paymentId: Type.String({ description: "The merchant's payment this settle made" }) }),
    ),
  },
  { description: "x402's `SettleResponse`" },
);

type SettleAnswer = typeof SettleResponse.static;

const answerLeaseMs = (ctx: AppContext) => ctx.config.x402SettleWaitMs + LEASE_MARGIN_MS;

/**
 * A payment's end as the settle holding its lease tells it, in the reasons of the payload's kind: only one settle of
 * a payload is told it succeeded.
 */
async function answerOfFinal(
  ctx: AppContext,
  payment: PaymentRow,
  { payer, terms }: CheckedX402Payment,
): Promise<SettleAnswer> {
  const network = payment.network ?? '';
  const namespace = namespaceOf(payment.network);
  if (payment.status === 'succeeded' && (await markAnsweredSucceeded(ctx, payment.id))) {
    return {
      success: true,
      payer,
      transaction: payment.tx_hash ?? '',
      network,
      amount: payment.token_value ?? '',
      extra: { paymentId: payment.id },
    };
  }
  await releaseAnswerLease(ctx, payment.id);
  if (payment.status === 'succeeded')
    return refusedAnswer(usedAlreadyReason(terms.kind), 'the payload was settled already', payer, network);
  return {
    success: false,
    errorReason: reasonOfFailure(payment.failure_code, terms.kind),
    errorMessage: `the payment ${payment.id} failed: ${payment.failure_code ?? 'failed'}`,
    payer,
    // A transfer that reverted is the payment's transaction only in the relayer's journal.
    transaction: payment.tx_hash ?? (await sentTransactionOf(ctx, payment.id, namespace)) ?? '',
    network,
    extra: { paymentId: payment.id },
  };
}

function refusedAnswer(reason: string, message: string, payer: string | undefined, network: string): SettleAnswer {
  return {
    success: false,
    errorReason: reason,
    errorMessage: message,
    ...(payer ? { payer } : {}),
    transaction: '',
    network,
  };
}

/**
 * Waits, holding the payment's answer lease, until the payment is final or `X402_SETTLE_WAIT_MS` pass, woken by its status
 * change in any process; then answers. Nothing is held meanwhile but the request: no connection, lock or worker.
 */
async function awaitOutcome(ctx: AppContext, paymentId: string, checked: CheckedX402Payment): Promise<SettleAnswer> {
  const deadline = Date.now() + ctx.config.x402SettleWaitMs;
  for (;;) {
    const remaining = deadline - Date.now();
    // Registered before the read, so a change committed in between still wakes this request.
    const wait = ctx.statusWaiter.waitForChange(paymentId, Math.max(remaining, 0));
    const payment = await ctx.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    if (isTerminal(payment.status)) {
      wait.cancel();
      return answerOfFinal(ctx, payment, checked);
    }
    if (remaining <= 0 || !wait.held) {
      wait.cancel();
      await releaseAnswerLease(ctx, paymentId);
      return {
        success: false,
        errorReason: X402_REASONS.settlementPending,
        errorMessage: `the payment ${paymentId} is not final yet; settle the same payload again for its outcome`,
        payer: checked.payer,
        transaction: (await sentTransactionOf(ctx, paymentId, namespaceOf(payment.network))) ?? '',
        network: payment.network ?? '',
        extra: { paymentId },
      };
    }
    await wait.changed;
  }
}

/**
 * A settle of an authorisation that already has its payment. Only the same payload for the same merchant is
 * answered with the payment's outcome, and only when no settle was told it succeeded and none is waiting for it (a
 * settle again after `settlement_pending`); any other is refused as a second use of the authorisation.
 */
async function answerExisting(
  ctx: AppContext,
  merchant: MerchantRow,
  existing: X402PaymentRow,
  payment: CheckedX402Payment,
): Promise<SettleAnswer> {
  const refused = (message: string) =>
    refusedAnswer(usedAlreadyReason(payment.terms.kind), message, payment.payer, payment.network.caip2);
  if (existing.merchant_id !== merchant.id || existing.signature !== payment.signature || existing.answered_at)
    return refused('the payload was settled already');
  if (!(await takeAnswerLease(ctx, existing.payment_id, answerLeaseMs(ctx))))
    return refused('the payload is being settled by another request');
  return awaitOutcome(ctx, existing.payment_id, payment);
}

export function registerSettleX402Payment(app: App, ctx: AppContext): void {
  app.post(
    '/v1/x402/settle',
    {
      config: { auth: { scope: 'x402' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['x402'],
        summary: "x402 facilitator: settle an agent's payment",
        description: `Checks the payment as verify does, then makes it a payment of the merchant in \`Merchant-Id\` (\`source: x402\`, \`processing\`), relays its transfer from the collector (to the merchant's own address, on Solana its own token account, from which it is swept to the collector) and answers once the payment is final: \`success: true\` with the transaction once it succeeded (at the network's depth), else \`success: false\` with x402's reason. A payload is paid once: of settles of one authorisation (concurrent, repeated, through any merchant or process) one makes the payment and one is told it succeeded; the others are refused with \`invalid_exact_evm_nonce_already_used\` (a Permit2 payload: \`permit2_invalid_nonce\`). A payment not final within \`X402_SETTLE_WAIT_MS\` (40 s by default) is answered \`settlement_pending\` with its transaction; settling the same payload again waits for it and answers its outcome. While the operator has not funded the network fees the settle would cost the collector, it answers 503 service_unavailable with details.reason network_fee_unfunded, recording and sending nothing.`,
        headers: MerchantIdHeader,
        body: FacilitatorRequest,
        response: { 200: SettleResponse, ...errorResponses(404, 502, 503) },
      },
    },
    async (request) => {
      const merchant = await merchantTakingX402(ctx, request);
      const services = chainServicesOf(ctx);
      try {
        const payment = await checkX402Payment(ctx, services, request.body, merchant.id);
        const existing = await x402PaymentOf(ctx, payment.identity);
        if (existing) return await answerExisting(ctx, merchant, existing, payment);
        await requireTakenByMerchant(ctx, merchant, payment);
        const check = await payment.checkOnChain();
        const claimed = await claimX402Payment(ctx, merchant, payment, answerLeaseMs(ctx));
        if (claimed === 'taken') {
          const winner = await x402PaymentOf(ctx, payment.identity);
          if (!winner) throw new Error(`the claim of ${payment.identity.nonce} was taken but is not found`);
          return await answerExisting(ctx, merchant, winner, payment);
        }
        ctx.submissions?.soon(claimed.id, check);
        return await awaitOutcome(ctx, claimed.id, payment);
      } catch (error) {
        if (!(error instanceof X402Refusal)) throw error;
        return refusedAnswer(
          error.reason,
          error.message,
          payerOf(request.body),
          request.body.paymentRequirements.network,
        );
      }
    },
  );
}
