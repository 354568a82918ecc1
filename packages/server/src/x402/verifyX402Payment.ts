import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { chainServicesOf } from '../gateway/gatewayPayment.ts';
import { errorResponses } from '../http/schemas.ts';
import { MerchantIdHeader, requireMerchantIdHeader } from '../payments/merchantHeader.ts';
import { checkX402Payment, payerOf } from './checkX402Payment.ts';
import { usedAlreadyReason, X402Refusal } from './reasons.ts';
import { merchantTakingX402 } from './x402Merchant.ts';
import { x402PaymentOf } from './x402Payments.ts';
import { requireTakenByMerchant } from './x402Requirements.ts';
import { FacilitatorRequest } from './x402Schemas.ts';

const VerifyResponse = Type.Object(
  {
    isValid: Type.Boolean(),
    invalidReason: Type.Optional(Type.String({ description: "x402's reason, e.g. invalid_exact_evm_signature" })),
    invalidMessage: Type.Optional(Type.String()),
    payer: Type.Optional(Type.String({ description: "The authoriser's address" })),
  },
  { description: "x402's `VerifyResponse`" },
);

export function registerVerifyX402Payment(app: App, ctx: AppContext): void {
  app.post(
    '/v1/x402/verify',
    {
      config: { auth: { scope: 'x402' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['x402'],
        summary: "x402 facilitator: verify an agent's payment",
        description:
          "Checks an x402 `exact` payment for the merchant in `Merchant-Id` as its settle would, without recording or sending anything: x402 version 2, the scheme and network, a stablecoin this service takes (on EVM networks by EIP-3009 or, with `extra.assetTransferMethod: permit2`, a Permit2 witness transfer through x402's proxy; an SPL transfer on Solana), payTo and the authorisation's recipient the merchant's own address (`extra.payTo` of `GET /v1/x402/supported`; on Solana the transfer to that owner's token account), so a payload made for another merchant is refused with `invalid_exact_evm_recipient_mismatch`, `invalid_permit2_recipient_mismatch` or `invalid_exact_svm_payload_recipient_mismatch`, exactly the requirements' `amount`, the authorisation's validity window (EVM) or the transaction's instructions and fee payer (Solana), a payload not settled before, the partner's fees covered, and one simulation of the transfer on chain. A payment refused is 200 with `isValid: false` and x402's reason. While the operator has not funded the network fees the settle would cost the collector, it answers 503 service_unavailable with details.reason network_fee_unfunded.",
        headers: MerchantIdHeader,
        body: FacilitatorRequest,
        response: { 200: VerifyResponse, ...errorResponses(404, 502, 503) },
      },
    },
    async (request) => {
      const merchant = await merchantTakingX402(ctx, request);
      const services = chainServicesOf(ctx);
      try {
        const payment = await checkX402Payment(ctx, services, request.body, merchant.id);
        if (await x402PaymentOf(ctx, payment.identity))
          throw new X402Refusal(usedAlreadyReason(payment.terms.kind), 'the payload was settled already');
        await requireTakenByMerchant(ctx, merchant, payment);
        await payment.checkOnChain();
        return { isValid: true, payer: payment.payer };
      } catch (error) {
        if (!(error instanceof X402Refusal)) throw error;
        const payer = payerOf(request.body);
        return {
          isValid: false,
          invalidReason: error.reason,
          invalidMessage: error.message,
          ...(payer ? { payer } : {}),
        };
      }
    },
  );
}
