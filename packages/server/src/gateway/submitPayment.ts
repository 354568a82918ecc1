import type { Task } from 'graphile-worker';
import type { Hex } from 'viem';
import { PaymentRefusedError, relayPermitTransfer, relayReceiveWithAuthorization } from '../chains/evm/index.ts';
import type { NetworkInfo } from '../chains/registry.ts';
import { BlockhashExpiredError, SignedTransactionRejectedError, SolanaTransactionRejectedError } from '../chains/solana/errors.ts';
import { verifyBuyerSignedTransaction } from '../chains/solana/verifyBuyerSignedTransaction.ts';
import type { AppContext } from '../context.ts';
import { changePaymentStatus, InvalidTransitionError } from '../payments/transitions.ts';
import { type AcceptedConfirmation, acceptedConfirmation, markProcessing, SUBMIT_PAYMENT_TASK } from './confirmation.ts';
import type { OptionRow } from './optionLookup.ts';
import { authorizationTypedData } from './paymentOptions.ts';
import { permitTypedData } from './permit2Payments.ts';
import type { GatewayServices } from './services.ts';

/** A submission refused before anything was sent fails the payment with this code; null once handed on. */
type Submission = { refused: string } | null;

/**
 * Sends one transaction for the payment through the relayer, unless a retried job finds the one it recorded
 * before (so an authorisation or permit is relayed once; its stored bytes are sent again if they never were).
 * The network's follower sees it land and makes the payment final.
 */
async function relayOnce(ctx: AppContext, services: GatewayServices, paymentId: string, purpose: string, relay: () => Promise<unknown>): Promise<Submission> {
  const recorded = await ctx.db.selectFrom('evm_transactions').select('id').where('payment_id', '=', paymentId).where('purpose', '=', purpose).executeTakeFirst();
  if (recorded) {
    await services.evm.relayer.broadcast(recorded.id);
    return null;
  }
  try {
    await relay();
    return null;
  } catch (error) {
    // Refused before anything was sent (the buyer spent the balance meanwhile, the authorisation expired).
    if (error instanceof PaymentRefusedError) return { refused: error.code };
    throw error;
  }
}

function evmNetwork(ctx: AppContext, option: OptionRow): NetworkInfo {
  const network = ctx.chains.network(option.network);
  if (!network) throw new Error(`${option.network} is not configured`);
  return network;
}

function submitEip3009(ctx: AppContext, services: GatewayServices, paymentId: string, option: OptionRow, signature: Hex): Promise<Submission> {
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

/**
 * Relays the permit from the collector. An option that began with the buyer's approval waits for it without a job:
 * the follower watches the approval and queues this job again once it is mined at the network's depth.
 */
async function submitPermit2(ctx: AppContext, services: GatewayServices, paymentId: string, option: OptionRow, values: string[]): Promise<Submission> {
  const { terms } = option;
  if (terms.kind !== 'permit2') throw new Error(`option ${option.id} is not a Permit2 option`);
  if (terms.approval) {
    const approval = await ctx.db
      .selectFrom('chain_watches')
      .select('status')
      .where('chain', '=', option.network)
      .where('tx_hash', '=', (values[0] ?? '').toLowerCase())
      .where('payment_id', '=', paymentId)
      .executeTakeFirst();
    if (approval?.status !== 'confirmed') return null;
  }
  const { permit } = terms;
  const network = evmNetwork(ctx, option);
  return relayOnce(ctx, services, paymentId, 'permit2_transfer', () =>
    relayPermitTransfer(services.evm.clients.for(network), services.evm.relayer, network, {
      typedData: permitTypedData(permit),
      owner: permit.owner,
      signature: values.at(-1) as Hex,
      expected: { token: permit.token, amount: BigInt(permit.amount), collector: permit.spender, paymentId, owner: permit.owner },
      clock: ctx.clock,
    }),
  );
}

/** Co-signs and sends the buyer's transaction once; journaled by signature, so a retried job sends the same one. */
async function submitSolana(services: GatewayServices, paymentId: string, option: OptionRow, signedTransaction: string): Promise<Submission> {
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
    await solana.sender.cosignRecordAndSend({
      purpose: 'payment',
      reference: paymentId,
      transaction,
      lastValidBlockHeight: BigInt(terms.transfer.lastValidBlockHeight),
    });
    return null;
  } catch (error) {
    if (error instanceof SignedTransactionRejectedError) return { refused: error.problem };
    if (error instanceof BlockhashExpiredError) return { refused: 'blockhash_expired' };
    // The node refused the first send: the journal marked it failed, and that failed the payment with it.
    if (error instanceof SolanaTransactionRejectedError) return null;
    throw error;
  }
}

function submit(ctx: AppContext, services: GatewayServices, paymentId: string, accepted: AcceptedConfirmation): Promise<Submission> {
  const { option } = accepted;
  const values = accepted.results.map((result) => result.data[0] ?? '');
  switch (option.terms.kind) {
    case 'eip3009':
      return submitEip3009(ctx, services, paymentId, option, values[0] as Hex);
    case 'permit2':
      return submitPermit2(ctx, services, paymentId, option, values);
    case 'native':
      // The buyer sent it: the follower watches it from the confirmation on.
      return Promise.resolve(null);
    case 'spl':
      return submitSolana(services, paymentId, option, values[0] ?? '');
  }
}

function transitionContext(ctx: AppContext) {
  return { db: ctx.db, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now: ctx.clock.now() };
}

/**
 * Makes the payment `processing` if the confirming request could not, and hands the buyer's authorisation or
 * transaction to the chain layer, which journals and sends it; nothing here waits for a block. Safe to run again
 * after a crash at any point: the journals keep it to one submission.
 */
async function submitConfirmedPayment(ctx: AppContext, services: GatewayServices, paymentId: string): Promise<void> {
  const accepted = await acceptedConfirmation(ctx.db, paymentId);
  if (!accepted) return;
  try {
    const payment = await markProcessing(transitionContext(ctx), accepted, paymentId);
    if (payment.status !== 'processing') return;
  } catch (error) {
    // Expired or cancelled before the confirming request could mark it: nothing may be submitted.
    if (error instanceof InvalidTransitionError) return;
    throw error;
  }
  const submission = await submit(ctx, services, paymentId, accepted);
  if (submission) await changePaymentStatus(transitionContext(ctx), paymentId, 'failed', { failure_code: submission.refused });
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
