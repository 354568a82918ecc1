import { buildSponsoredTransfer, solanaSignTransactionAction } from '../../chains/solana/buildSponsoredTransfer.ts';
import {
  BlockhashExpiredError,
  SignedTransactionRejectedError,
  SolanaTransactionRejectedError,
} from '../../chains/solana/errors.ts';
import { verifyBuyerSignedTransaction } from '../../chains/solana/verifyBuyerSignedTransaction.ts';
import { ApiError } from '../../http/errors.ts';
import { readingChain } from '../chainFailures.ts';
import { type PaymentMethodHandler, sentTransferFailure } from './paymentMethod.ts';
import { noLongerAccepted, refused } from './refusals.ts';
import type { SplTerms, StoredSolanaTransfer } from './terms.ts';

const JOURNAL_PURPOSE = 'payment';

/** The build action's `data`: names the option, so a fetch can only build what was offered. */
function solanaBuildData(optionId: string): string {
  return `solana-transfer:${optionId}`;
}

/**
 * SPL tokens on Solana (USDC): a build action that the fetch operation turns into a transfer for the buyer to sign,
 * whose fees the collector pays as co-signer.
 */
export const solanaSplMethod: PaymentMethodHandler<SplTerms> = {
  kind: 'spl',
  namespace: 'solana',
  tokenMethod: 'spl',
  transfers: { [JOURNAL_PURPOSE]: { paysPayment: true, failureCode: sentTransferFailure } },

  async offer(_services, _network, { account, token }, optionId) {
    return {
      terms: { kind: 'spl', buyer: account.address, mint: token.address, decimals: token.decimals, transfer: null },
      actions: [{ type: 'build', data: { data: solanaBuildData(optionId) } }],
    };
  },

  /** Builds the transfer with a fresh blockhash; only the latest one built can be confirmed. */
  async build(services, option, paymentId) {
    const { terms } = option;
    const solana = services.solana.networks.get(option.network);
    if (!solana)
      throw new ApiError('service_unavailable', `Payments on ${option.network} are not configured on this service.`);
    const built = await readingChain(option.network, () =>
      buildSponsoredTransfer({
        rpc: solana.rpc,
        collector: services.solana.collector.address,
        buyer: terms.buyer,
        mint: terms.mint,
        decimals: terms.decimals,
        amount: BigInt(option.amount),
        paymentId,
      }),
    );
    const transfer: StoredSolanaTransfer = {
      transactionBase64: built.transactionBase64,
      messageBytesBase64: built.messageBytesBase64,
      lastValidBlockHeight: built.lastValidBlockHeight.toString(),
    };
    return {
      terms: { ...terms, transfer },
      actions: [{ type: 'walletRpc', data: { chain_id: option.network, ...solanaSignTransactionAction(built) } }],
    };
  },

  async verifyConfirmation(services, _chains, option, results) {
    const { terms } = option;
    const value = results[0]?.data[0] as string;
    const solana = services.solana.networks.get(option.network);
    if (!solana) throw noLongerAccepted(option);
    if (!terms.transfer) throw refused('Fetch the build action before confirming this option.', 'not_built');
    let transaction: Awaited<ReturnType<typeof verifyBuyerSignedTransaction>>;
    try {
      transaction = await verifyBuyerSignedTransaction({
        signedTransactionBase64: value,
        expectedMessageBytesBase64: terms.transfer.messageBytesBase64,
        buyer: terms.buyer,
      });
    } catch (error) {
      if (error instanceof SignedTransactionRejectedError)
        throw refused(`The signed transaction was refused: ${error.message}.`, error.code);
      throw error;
    }
    const blockHeight = await solana.blockHeight();
    if (blockHeight > BigInt(terms.transfer.lastValidBlockHeight)) {
      const expired = new BlockhashExpiredError(BigInt(terms.transfer.lastValidBlockHeight), blockHeight);
      throw new ApiError('quote_expired', `${expired.message}; fetch the transaction again.`);
    }
    // The collector pays its fee out of the operator's funding: a confirm it cannot cover is refused.
    await solana.sender.requireNetworkFeeFunded(transaction);
    return {};
  },

  /** Co-signs and sends the buyer's transaction once; journaled by signature, so a retried job sends the same one. */
  async submit(_ctx, services, paymentId, option, values) {
    const { terms } = option;
    if (!terms.transfer) throw new Error(`option ${option.id} has no built Solana transfer`);
    const solana = services.solana.networks.get(option.network);
    if (!solana) throw new Error(`${option.network} is not configured`);
    try {
      const transaction = await verifyBuyerSignedTransaction({
        signedTransactionBase64: values[0] ?? '',
        expectedMessageBytesBase64: terms.transfer.messageBytesBase64,
        buyer: terms.buyer,
      });
      await solana.sender.cosignRecordAndSend({
        purpose: JOURNAL_PURPOSE,
        reference: paymentId,
        transaction,
        lastValidBlockHeight: BigInt(terms.transfer.lastValidBlockHeight),
      });
      return null;
    } catch (error) {
      if (error instanceof SignedTransactionRejectedError) return { refused: error.code };
      if (error instanceof BlockhashExpiredError) return { refused: 'blockhash_expired' };
      // The node refused the first send: the journal marked it failed, and that failed the payment with it.
      if (error instanceof SolanaTransactionRejectedError) return null;
      throw error;
    }
  },
};
