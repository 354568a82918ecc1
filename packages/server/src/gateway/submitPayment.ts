import type { Task } from 'graphile-worker';
import type { Hex } from 'viem';
import { PaymentRefusedError, relayPermitTransfer, relayReceiveWithAuthorization } from '../chains/evm/index.ts';
import type { NetworkInfo } from '../chains/registry.ts';
import {
  BlockhashExpiredError,
  SignedTransactionRejectedError,
  SolanaTransactionFailedError,
  SolanaTransactionRejectedError,
} from '../chains/solana/errors.ts';
import { verifyBuyerSignedTransaction } from '../chains/solana/verifyBuyerSignedTransaction.ts';
import type { AppContext } from '../context.ts';
import type { PaymentStatus } from '../db/schema.ts';
import { changePaymentStatus, InvalidTransitionError } from '../payments/transitions.ts';
import { processingChanges, SUBMIT_PAYMENT_TASK, type WalletResult } from './confirmation.ts';
import type { OptionRow } from './optionLookup.ts';
import { waitForNativeTransfer } from './nativePayments.ts';
import { authorizationTypedData } from './paymentOptions.ts';
import { permitTypedData } from './permit2Payments.ts';
import type { GatewayServices } from './services.ts';

type SubmissionOutcome = { landed: true; hash: string; nonce: string | null } | { landed: false; failureCode: string };

/**
 * Relays one transaction for the payment through the relayer, unless a retried job finds the one it recorded
 * before (so an authorisation or permit is relayed once), then waits for the chain's verdict.
 */
async function relayOnce(ctx: AppContext, services: GatewayServices, paymentId: string, purpose: string, relay: () => Promise<{ id: string }>): Promise<SubmissionOutcome> {
  const { relayer } = services.evm;
  let transactionId = (
    await ctx.db.selectFrom('evm_transactions').select('id').where('payment_id', '=', paymentId).where('purpose', '=', purpose).executeTakeFirst()
  )?.id;
  if (!transactionId) {
    try {
      ({ id: transactionId } = await relay());
    } catch (error) {
      // Refused before anything was sent (the buyer spent the balance meanwhile, the authorisation expired).
      if (error instanceof PaymentRefusedError) return { landed: false, failureCode: error.code };
      throw error;
    }
  }
  const outcome = await relayer.waitForOutcome(transactionId);
  if (outcome.status !== 'confirmed' || !outcome.hash) return { landed: false, failureCode: 'transaction_failed' };
  const { nonce } = await ctx.db.selectFrom('evm_transactions').select('nonce').where('id', '=', transactionId).executeTakeFirstOrThrow();
  return { landed: true, hash: outcome.hash, nonce };
}

function evmNetwork(ctx: AppContext, option: OptionRow): NetworkInfo {
  const network = ctx.chains.network(option.network);
  if (!network) throw new Error(`${option.network} is not configured`);
  return network;
}

function submitEip3009(ctx: AppContext, services: GatewayServices, paymentId: string, option: OptionRow, signature: Hex): Promise<SubmissionOutcome> {
  if (option.terms.kind !== 'eip3009') throw new Error(`option ${option.id} is not an EIP-3009 option`);
  const typedData = authorizationTypedData(option.terms.authorization);
  return relayOnce(ctx, services, paymentId, 'eip3009_receive', () =>
    relayReceiveWithAuthorization(services.evm.clients.for(evmNetwork(ctx, option)), services.evm.relayer, {
      chain: option.network,
      typedData,
      signature,
      expected: { token: typedData.domain.verifyingContract, collector: services.evm.collector, value: BigInt(option.amount), from: typedData.message.from },
      clock: ctx.clock,
      paymentId,
    }),
  );
}

/** Waits for the buyer's approval when the option had one, then relays the permit from the collector. */
function submitPermit2(ctx: AppContext, services: GatewayServices, paymentId: string, option: OptionRow, values: string[]): Promise<SubmissionOutcome> {
  const { terms } = option;
  if (terms.kind !== 'permit2') throw new Error(`option ${option.id} is not a Permit2 option`);
  const { permit } = terms;
  const network = evmNetwork(ctx, option);
  return relayOnce(ctx, services, paymentId, 'permit2_transfer', () =>
    relayPermitTransfer(services.evm.clients.for(network), services.evm.relayer, network, {
      typedData: permitTypedData(permit),
      owner: permit.owner,
      signature: values.at(-1) as Hex,
      expected: { token: permit.token, amount: BigInt(permit.amount), collector: permit.spender, paymentId, owner: permit.owner },
      ...(terms.approval ? { approvalHash: values[0] as Hex } : {}),
      clock: ctx.clock,
    }),
  );
}

/** How long one attempt waits for a native transfer to be mined deep enough; the job is retried after that. */
const NATIVE_TRANSFER_WAIT_MS = 300_000;

/** The buyer sent the coins itself: the payment succeeds once that transfer is mined at the network's depth. */
async function settleNativeTransfer(ctx: AppContext, services: GatewayServices, option: OptionRow, hash: Hex): Promise<SubmissionOutcome> {
  if (option.terms.kind !== 'native') throw new Error(`option ${option.id} is not a native-coin option`);
  const network = evmNetwork(ctx, option);
  try {
    const native = { terms: option.terms, created_at: option.created_at };
    const state = await waitForNativeTransfer(services.evm.clients.for(network), network, native, hash, NATIVE_TRANSFER_WAIT_MS);
    if (state.state !== 'confirmed') throw new Error(`transaction ${hash} is not mined ${network.confirmations} deep yet`);
  } catch (error) {
    if (error instanceof PaymentRefusedError) return { landed: false, failureCode: error.code };
    throw error;
  }
  return { landed: true, hash, nonce: null };
}

async function submitSolana(services: GatewayServices, paymentId: string, option: OptionRow, signedTransaction: string): Promise<SubmissionOutcome> {
  const { terms } = option;
  if (terms.kind !== 'spl' || !terms.transfer) throw new Error(`option ${option.id} has no built Solana transfer`);
  const solana = services.solana.networks.get(option.network);
  if (!solana) throw new Error(`${option.network} is not configured`);
  try {
    const transaction = await verifyBuyerSignedTransaction({
      signedTransactionBase64: signedTransaction,
      expectedMessageBytesBase64: terms.transfer.messageBytesBase64,
      buyer: terms.buyer,
    });
    // Journaled by signature: a retried job sends the same transaction again, never another one.
    const landed = await solana.sender.cosignAndSend({
      purpose: 'payment',
      reference: paymentId,
      transaction,
      lastValidBlockHeight: BigInt(terms.transfer.lastValidBlockHeight),
    });
    return { landed: true, hash: landed.signature, nonce: null };
  } catch (error) {
    if (error instanceof SignedTransactionRejectedError) return { landed: false, failureCode: error.problem };
    if (error instanceof BlockhashExpiredError) return { landed: false, failureCode: 'blockhash_expired' };
    if (error instanceof SolanaTransactionRejectedError || error instanceof SolanaTransactionFailedError) {
      return { landed: false, failureCode: 'transaction_failed' };
    }
    throw error;
  }
}

/**
 * Makes the payment `processing` if the confirming request could not, relays the buyer's authorisation or
 * transaction through the chain layer, and records the chain's verdict. Safe to run again after a crash at any
 * point: the chain layer's journals keep it to one submission.
 */
async function submitConfirmedPayment(ctx: AppContext, services: GatewayServices, paymentId: string): Promise<void> {
  const confirmation = await ctx.db.selectFrom('payment_confirmations').selectAll().where('payment_id', '=', paymentId).executeTakeFirst();
  if (!confirmation) return;
  const offered = await ctx.db.selectFrom('payment_options').selectAll().where('id', '=', confirmation.option_id).executeTakeFirstOrThrow();
  // Submitted exactly as the accepted confirm checked it.
  const option = { ...offered, terms: confirmation.terms } as OptionRow;
  const transition = (to: PaymentStatus, changes = {}) => changePaymentStatus(transitionContext(ctx), paymentId, to, changes);

  const provider = { name: confirmation.provider_name, icon: confirmation.provider_icon };
  try {
    const { payment } = await transition('processing', processingChanges(ctx.chains, option, provider));
    if (payment.status !== 'processing') return;
  } catch (error) {
    // Expired or cancelled before the confirming request could mark it: nothing may be submitted.
    if (error instanceof InvalidTransitionError) return;
    throw error;
  }

  const values = (confirmation.results as WalletResult[]).map((result) => result.data[0] ?? '');
  const result = values[0] ?? '';
  const kind = option.terms.kind;
  const outcome =
    kind === 'eip3009'
      ? await submitEip3009(ctx, services, paymentId, option, result as Hex)
      : kind === 'permit2'
        ? await submitPermit2(ctx, services, paymentId, option, values)
        : kind === 'native'
          ? await settleNativeTransfer(ctx, services, option, result as Hex)
          : await submitSolana(services, paymentId, option, result);
  if (outcome.landed) await transition('succeeded', { tx_hash: outcome.hash, tx_nonce: outcome.nonce });
  else await transition('failed', { failure_code: outcome.failureCode });
}

function transitionContext(ctx: AppContext) {
  return { db: ctx.db, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now: ctx.clock.now() };
}

/**
 * Enqueued with the confirmation it submits, retried with backoff while the chain or its node fails. When the
 * last attempt fails too, the payment becomes `failed` instead of staying `processing` for ever.
 */
export function submitPaymentTask(ctx: AppContext): Task {
  return async (payload, helpers) => {
    const { paymentId } = payload as { paymentId: string };
    const services = ctx.gateway;
    if (!services) throw new Error('this process has no chain services to submit payments with');
    try {
      await submitConfirmedPayment(ctx, services, paymentId);
    } catch (error) {
      if (helpers.job.attempts >= helpers.job.max_attempts) {
        await changePaymentStatus(transitionContext(ctx), paymentId, 'failed', { failure_code: 'submission_failed' }).catch((refused: unknown) => {
          // Never made processing (or already final): there is nothing to fail.
          if (!(refused instanceof InvalidTransitionError)) throw refused;
        });
      }
      throw error;
    }
  };
}

export function gatewayTasks(ctx: AppContext) {
  return { [SUBMIT_PAYMENT_TASK]: submitPaymentTask(ctx) };
}
