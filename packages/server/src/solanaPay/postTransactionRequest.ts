import { Type } from '@sinclair/typebox';
import { isAddress } from '@solana/kit';
import { buildSolanaPayTransfer } from '../chains/solana/buildSolanaPayTransfer.ts';
import type { App, AppContext } from '../context.ts';
import { readingChain } from '../gateway/chainFailures.ts';
import { chainServicesOf, merchantTakingPayments, requirePayable } from '../gateway/gatewayPayment.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { decimalAmount } from './transferRequestUri.ts';
import { openCors, solanaPayRequestOf, TransactionRequestParams } from './transactionRequestSchemas.ts';

const TransactionRequestBody = Type.Object({
  account: Type.String({ maxLength: 64, description: 'The paying account (base58 public key)' }),
});

/**
 * Solana Pay transaction request, second call: a transaction for the account to sign and send that pays the
 * request, built like the sponsored transfer (the collector pays the fee and has signed), with the reference.
 */
export function registerPostTransactionRequest(app: App, ctx: AppContext): void {
  app.post(
    '/v1/solana-pay/requests/:reference',
    {
      config: { auth: false },
      onRequest: openCors,
      schema: {
        tags: ['solana-pay'],
        summary: 'Solana Pay transaction request: the transaction',
        description:
          "The second call of a Solana Pay transaction request: a transaction that moves the payment's exact amount from the account's token account to the collector's, with the request's reference key; the service pays its fee and has signed it, the account signs and sends it. A payment that is no longer payable answers 400 invalid_state or 410 payment_expired. Open to any origin; rate limited per IP.",
        params: TransactionRequestParams,
        body: TransactionRequestBody,
        response: {
          200: Type.Object({
            transaction: Type.String({ description: 'Base64 wire transaction, signed by the fee payer' }),
            message: Type.String({ description: 'What the wallet shows the buyer' }),
          }),
          ...errorResponses(404, 410, 502, 503),
        },
      },
    },
    async (request) => {
      const { account } = request.body;
      if (!isAddress(account)) throw ApiError.validation([{ field: 'account', message: 'is not a Solana address' }]);
      const solanaPay = await solanaPayRequestOf(ctx, request.params.reference);
      const payment = await ctx.db
        .selectFrom('payments')
        .selectAll()
        .where('id', '=', solanaPay.payment_id)
        .executeTakeFirstOrThrow();
      requirePayable(payment, ctx.clock.now());
      const merchant = await merchantTakingPayments(ctx, payment);
      const services = chainServicesOf(ctx);
      const solana = services.solana.networks.get(solanaPay.network);
      if (!solana || services.solana.collector.address !== solanaPay.recipient)
        throw new ApiError(
          'service_unavailable',
          `Payments on ${solanaPay.network} are not configured on this service.`,
        );
      const amount = BigInt(solanaPay.amount);
      const built = await readingChain(solanaPay.network, () =>
        buildSolanaPayTransfer({
          rpc: solana.rpc,
          collector: services.solana.collector,
          account,
          mint: solanaPay.mint,
          decimals: solanaPay.decimals,
          amount,
          reference: solanaPay.reference,
          memo: payment.id,
        }),
      );
      const symbol = ctx.chains.token(solanaPay.asset)?.symbol ?? 'tokens';
      return {
        transaction: built.transactionBase64,
        message: `Pay ${decimalAmount(amount, solanaPay.decimals)} ${symbol} to ${merchant.name}`,
      };
    },
  );
}
