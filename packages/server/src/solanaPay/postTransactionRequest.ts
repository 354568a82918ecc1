import { Type } from '@sinclair/typebox';
import { isAddress } from '@solana/kit';
import { buildSolanaPayTransfer } from '../chains/solana/buildSolanaPayTransfer.ts';
import { readSolanaBalances } from '../chains/solana/readSolanaBalances.ts';
import { simulatedFailure } from '../chains/solana/simulatedFailure.ts';
import { commitmentFor } from '../chains/solana/transactionSender.ts';
import type { App, AppContext } from '../context.ts';
import { readingChain } from '../gateway/chainFailures.ts';
import { chainServicesOf, merchantTakingPayments, requirePayable } from '../gateway/gatewayPayment.ts';
import { ApiError } from '../http/errors.ts';
import { decimalAmount } from '@paygate/client/money';
import { errorResponses } from '../http/schemas.ts';
import { COSIGNED_PER_ACCOUNT, COSIGNED_PER_PAYMENT, recordCosignedTransaction } from './cosignedTransactions.ts';
import { openCors, solanaPayRequestOf, TransactionRequestParams } from './transactionRequestSchemas.ts';

const TransactionRequestBody = Type.Object({
  account: Type.String({ maxLength: 64, description: 'The paying account (base58 public key)' }),
});

/**
 * Solana Pay transaction request, second call: a transaction for the account to sign and send that pays the
 * request, built like the sponsored transfer (the collector pays the fee and has signed), with the reference.
 * Anyone may ask for any account, and the collector pays the fee of a transaction that lands and fails too: so it
 * signs only for an account that holds the amount, only a transaction its simulation shows succeeding, and only so
 * many that can still land per payment and per account (`recordCosignedTransaction`).
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
        description: `The second call of a Solana Pay transaction request: a transaction that moves the payment's exact amount from the account's token account to the collector's, with the request's reference key; the service pays its fee and has signed it, the account signs and sends it. A payment that is no longer payable answers 400 invalid_state or 410 payment_expired. The service signs only what would pay: an account holding less of the token than the amount answers 409 insufficient_token_balance, a transaction whose simulation fails 409 transaction_would_fail with the reason, and while ${COSIGNED_PER_PAYMENT} transactions signed for the payment, or ${COSIGNED_PER_ACCOUNT} for the account, can still land (until their blockhash expires, about a minute) it answers 429 transaction_request_limit with Retry-After. While the operator's funding of SOL does not cover the fees of the transactions it signed that can still land and this one, it answers 503 service_unavailable with details.reason network_fee_unfunded. Open to any origin; rate limited per IP.`,
        params: TransactionRequestParams,
        body: TransactionRequestBody,
        response: {
          200: Type.Object({
            transaction: Type.String({ description: 'Base64 wire transaction, signed by the fee payer' }),
            message: Type.String({ description: 'What the wallet shows the buyer' }),
          }),
          ...errorResponses(404, 409, 410, 502, 503),
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
      const network = ctx.chains.network(solanaPay.network);
      const solana = services.solana.networks.get(solanaPay.network);
      const collector = services.solana.collector;
      if (!network || !solana || collector.address !== solanaPay.recipient)
        throw new ApiError(
          'service_unavailable',
          `Payments on ${solanaPay.network} are not configured on this service.`,
        );
      // Signed by the collector as fee payer and as the transfer's authority, it would need no other signature.
      if (account === collector.address)
        throw ApiError.validation([{ field: 'account', message: "is the service's collector" }]);
      const commitment = commitmentFor(network.confirmations);
      const amount = BigInt(solanaPay.amount);
      const symbol = ctx.chains.token(solanaPay.asset)?.symbol ?? 'tokens';
      const balances = await readingChain(network.caip2, () =>
        readSolanaBalances(solana.rpc, [account], [solanaPay.mint], { commitment }),
      );
      const balance = balances[account]?.tokens[solanaPay.mint] ?? 0n;
      if (balance < amount)
        throw new ApiError(
          'insufficient_token_balance',
          `The account ${account} holds ${decimalAmount(balance, solanaPay.decimals)} ${symbol}; this payment asks ${decimalAmount(amount, solanaPay.decimals)} ${symbol}.`,
          { account, balance: balance.toString(), amount: amount.toString() },
        );
      const built = await readingChain(network.caip2, () =>
        buildSolanaPayTransfer({
          rpc: solana.rpc,
          collector,
          account,
          mint: solanaPay.mint,
          decimals: solanaPay.decimals,
          amount,
          reference: solanaPay.reference,
          memo: payment.id,
        }),
      );
      const failure = await readingChain(network.caip2, () =>
        simulatedFailure(solana.rpc, built.transactionBase64, commitment),
      );
      if (failure !== null)
        throw new ApiError('transaction_would_fail', `The transaction would fail: ${failure}.`, { reason: failure });
      await recordCosignedTransaction(
        ctx.db,
        {
          signature: built.signature,
          network: network.caip2,
          reference: solanaPay.reference,
          paymentId: payment.id,
          account,
          lastValidBlockHeight: built.lastValidBlockHeight,
          maxNetworkFee: built.maxNetworkFee,
        },
        {
          blockHeight: await readingChain(network.caip2, () => solana.blockHeight()),
          blockTimeMs: network.blockTimeMs,
        },
      );
      return {
        transaction: built.transactionBase64,
        message: `Pay ${decimalAmount(amount, solanaPay.decimals)} ${symbol} to ${merchant.name}`,
      };
    },
  );
}
