import { getBase64Encoder, getTransactionDecoder } from '@solana/kit';
import { BlockhashExpiredError, SolanaTransactionRejectedError } from '../chains/solana/errors.ts';
import { type PaymentMethodHandler, sentTransferFailure } from '../gateway/methods/paymentMethod.ts';
import type { X402SvmTerms } from '../gateway/methods/terms.ts';

/** The Solana journal's purpose of the transfer that pays a payment (as a gateway SPL payment's). */
const JOURNAL_PURPOSE = 'payment';

/**
 * An x402 `exact` payment on Solana: the agent's transfer, checked by the x402 facilitator (`exactSvmPayment.ts`)
 * and recorded as the payment's one option and confirmation; its submission co-signs it as fee payer, journals and
 * sends it once, and the network's follower makes the payment succeeded or failed, as for a gateway SPL payment.
 */
export const x402SvmMethod: PaymentMethodHandler<X402SvmTerms> = {
  kind: 'x402_svm',
  namespace: 'solana',
  tokenMethod: 'spl',
  transfers: { [JOURNAL_PURPOSE]: { paysPayment: true, failureCode: sentTransferFailure } },

  offer() {
    return Promise.reject(
      new Error('an x402 payment arrives signed through the x402 facilitator; it is never offered'),
    );
  },

  /** The facilitator checked the transaction and simulated it before it recorded the payment. */
  async verifyConfirmation() {
    return {};
  },

  /** Co-signs and sends the agent's transaction once; journaled by signature, so a retried job sends the same one. */
  async submit(_ctx, services, paymentId, option) {
    const solana = services.solana.networks.get(option.network);
    if (!solana) throw new Error(`${option.network} is not configured`);
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(option.terms.transactionBase64));
    try {
      await solana.sender.cosignRecordAndSend({
        purpose: JOURNAL_PURPOSE,
        reference: paymentId,
        transaction,
        lastValidBlockHeight: BigInt(option.terms.lastValidBlockHeight),
      });
      return null;
    } catch (error) {
      if (error instanceof BlockhashExpiredError) return { refused: 'blockhash_expired' };
      // The node refused the first send: the journal marked it failed, and that failed the payment with it.
      if (error instanceof SolanaTransactionRejectedError) return null;
      throw error;
    }
  },
};
