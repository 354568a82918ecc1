import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { retrySubmissionAfter, takeSubmission } from '../../src/gateway/confirmation.ts';
import { SUBMISSION_LEASE_MS, submitDuePayment } from '../../src/gateway/submitPayment.ts';
import {
  type GatewayTestbed,
  signSolanaAsWallet,
  signTypedDataAsWallet,
  startGatewayTestbed,
} from './support/gatewayTestbed.ts';

let bed: GatewayTestbed;

beforeAll(async () => {
  bed = await startGatewayTestbed({ workers: false });
}, 180_000);

afterAll(async () => {
  await bed?.close();
});

afterEach(async () => {
  await bed.stopWorkers();
});

/** A USDC payment confirmed by alice: `processing`, its submission due. */
async function confirmedPayment(): Promise<string> {
  const { paymentId } = await bed.newPayment();
  const { body } = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('alice')] });
  const option = body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
  const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, option.actions[0].data.params);
  const confirmed = await bed.gateway(paymentId, '/confirm', {
    optionId: option.id,
    results: [{ type: 'walletRpc', data: [signature] }],
  });
  expect(confirmed.body, confirmed.text).toMatchObject({ status: 'processing' });
  return paymentId;
}

/**
 * A USDC payment on Solana that erin signed and confirmed: `processing`, its submission due. The blockhash of its
 * transaction, read by the fetch, lives 150 slots of 400 ms on the devnet: 60 s.
 */
async function confirmedSolanaPayment(): Promise<{ paymentId: string; fetchedAt: number }> {
  const { paymentId } = await bed.newPayment();
  const { body } = await bed.gateway(paymentId, '/options', { accounts: [bed.solanaAccount('erin')] });
  const [option] = body.options;
  const fetched = await bed.gateway(paymentId, '/fetch', { optionId: option.id, data: option.actions[0].data.data });
  expect(fetched.status, fetched.text).toBe(200);
  const fetchedAt = Date.now();
  const signed = await signSolanaAsWallet(bed.buyer('erin').solanaSecretKey, fetched.body.actions[0].data.params);
  const confirmed = await bed.gateway(paymentId, '/confirm', {
    optionId: option.id,
    results: [{ type: 'walletRpc', data: [signed] }],
  });
  expect(confirmed.body, confirmed.text).toMatchObject({ status: 'processing' });
  return { paymentId, fetchedAt };
}

/** How long the lease of the payment's submission has left, by the database's clock. */
async function leaseLeftMs(paymentId: string): Promise<number> {
  const { left } = await bed.server.db
    .selectFrom('payment_confirmations')
    .select(sql<string>`extract(epoch from next_submission_at - now()) * 1000`.as('left'))
    .where('payment_id', '=', paymentId)
    .executeTakeFirstOrThrow();
  return Number(left);
}

function submissionOf(paymentId: string) {
  return bed.server.db
    .selectFrom('payment_confirmations')
    .select(['submitted_at', 'submission_attempts'])
    .where('payment_id', '=', paymentId)
    .executeTakeFirstOrThrow();
}

describe('a confirmed payment', () => {
  it('is submitted by the request that confirmed it, without waiting for a sweep', async () => {
    // The one sweep runs at start, before the confirm; the next would come in an hour.
    await bed.startWorkers(undefined, { sweepEveryMs: 3_600_000 });
    const paymentId = await confirmedPayment();
    expect(await bed.finalStatus(paymentId)).toMatchObject({ status: 'succeeded' });
    const submission = await submissionOf(paymentId);
    expect(submission.submission_attempts).toBe(1);
    expect(submission.submitted_at).not.toBeNull();
  });

  it('is taken by one process at a time, and submitted by a sweep when the confirming process did not', async () => {
    // No process submits here: the confirmation stays due.
    const paymentId = await confirmedPayment();
    const takers = await Promise.all(
      [1, 2, 3].map(() => takeSubmission(bed.server.db, paymentId, SUBMISSION_LEASE_MS)),
    );
    expect(takers.filter((taken) => taken !== undefined)).toHaveLength(1);
    // Leased: nobody else takes it until the lease ends or the attempt gives it back.
    expect(await takeSubmission(bed.server.db, paymentId, SUBMISSION_LEASE_MS)).toBeUndefined();
    expect(await submissionOf(paymentId)).toMatchObject({ submitted_at: null, submission_attempts: 1 });

    // The attempt failed and its backoff ran out: any process's sweep takes it.
    await retrySubmissionAfter(bed.server.db, paymentId, 0);
    await bed.startWorkers();
    expect(await bed.finalStatus(paymentId)).toMatchObject({ status: 'succeeded' });
    const submission = await submissionOf(paymentId);
    expect(submission.submission_attempts).toBe(2);
    expect(submission.submitted_at).not.toBeNull();
  });

  it('relays with the gas its confirm measured on the first attempt, and measures again on a later one', async () => {
    const relayedGas = async (paymentId: string) =>
      (
        await bed.server.db
          .selectFrom('evm_transactions')
          .select('gas')
          .where('payment_id', '=', paymentId)
          .executeTakeFirstOrThrow()
      ).gas;
    // Far from what the node estimates, so the stored gas tells which one the relayer used (with its 20 % headroom).
    const measured = { gas: 400_000n };

    const first = await confirmedPayment();
    await submitDuePayment(bed.server.ctx, bed.services, first, measured);
    expect(BigInt(await relayedGas(first))).toBe(480_000n);

    const retried = await confirmedPayment();
    await takeSubmission(bed.server.db, retried, SUBMISSION_LEASE_MS);
    await retrySubmissionAfter(bed.server.db, retried, 0);
    await submitDuePayment(bed.server.ctx, bed.services, retried, measured);
    const estimated = BigInt(await relayedGas(retried));
    expect(estimated).toBeGreaterThan(0n);
    expect(estimated).toBeLessThan(400_000n);

    await bed.startWorkers();
    expect(await bed.finalStatus(first)).toMatchObject({ status: 'succeeded' });
    expect(await bed.finalStatus(retried)).toMatchObject({ status: 'succeeded' });
  });
});

describe('a submission taken by a process that died before sending it', () => {
  it('on Solana, is taken again after a 20 s lease and lands well before its blockhash expires', async () => {
    const { paymentId, fetchedAt } = await confirmedSolanaPayment();
    // Taken by a process that never sends it: nothing is journaled, so only another taker can send it.
    expect(await takeSubmission(bed.server.db, paymentId, SUBMISSION_LEASE_MS)).toBeDefined();
    const left = await leaseLeftMs(paymentId);
    expect(left).toBeGreaterThan(19_000);
    expect(left).toBeLessThanOrEqual(20_000);

    await bed.startWorkers();
    expect(await bed.finalStatus(paymentId)).toMatchObject({ status: 'succeeded' });
    expect(await submissionOf(paymentId)).toMatchObject({ submission_attempts: 2 });
    expect(Date.now() - fetchedAt).toBeLessThan(45_000);
  }, 120_000);

  it('on EVM, keeps its 60 s lease: a second relay beside an attempt still under way is not safe', async () => {
    const paymentId = await confirmedPayment();
    expect(await takeSubmission(bed.server.db, paymentId, SUBMISSION_LEASE_MS)).toBeDefined();
    expect(await leaseLeftMs(paymentId)).toBeGreaterThan(59_000);
    expect(await takeSubmission(bed.server.db, paymentId, SUBMISSION_LEASE_MS)).toBeUndefined();
  });
});
