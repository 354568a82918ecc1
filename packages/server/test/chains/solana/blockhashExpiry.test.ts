import { randomUUID } from 'node:crypto';
import { signature as toSignature } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildSponsoredTransfer } from '../../../src/chains/solana/buildSponsoredTransfer.ts';
import { BlockhashExpiredError } from '../../../src/chains/solana/errors.ts';
import { readSolanaBalances } from '../../../src/chains/solana/readSolanaBalances.ts';
import { SolanaTransactionSender } from '../../../src/chains/solana/transactionSender.ts';
import { verifyBuyerSignedTransaction } from '../../../src/chains/solana/verifyBuyerSignedTransaction.ts';
import { connect, type Db } from '../../../src/db/database.ts';
import { cosignAndConfirm, followUntilFinal } from '../../support/chainWaits.ts';
import { countingRpc, signAsWallet, startSolanaTestbed, waitFor, type SolanaTestbed } from './solanaTestKit.ts';

// 20 ms slots: a blockhash expires 150 slots (3 s) after it was produced.
let testbed: SolanaTestbed;
let db: Db;
let sender: SolanaTransactionSender;

beforeAll(async () => {
  testbed = await startSolanaTestbed({ solanaSlotMs: 20 });
  db = connect(inject('databaseUrl'), 2);
  await testbed.recordOperatorFunding(db);
  sender = new SolanaTransactionSender({
    db,
    rpc: testbed.rpc,
    network: testbed.network,
    collector: testbed.collector,
    commitment: 'confirmed',
  });
});

afterAll(async () => {
  await db?.destroy();
  await testbed?.close();
});

async function signedTransferFor(buyerName: string, amount: bigint, paymentId: string) {
  const buyer = await testbed.buyer(buyerName);
  const transfer = await buildSponsoredTransfer({
    rpc: testbed.rpc,
    collector: testbed.collector.address,
    buyer: buyer.address,
    mint: testbed.usdc,
    decimals: 6,
    amount,
    paymentId,
  });
  const transaction = await verifyBuyerSignedTransaction({
    signedTransactionBase64: await signAsWallet(transfer.transactionBase64, buyer.keyPair),
    expectedMessageBytesBase64: transfer.messageBytesBase64,
    buyer: buyer.address,
  });
  return { buyer, transfer, transaction };
}

async function waitPast(lastValidBlockHeight: bigint): Promise<void> {
  await waitFor(
    async () => (await testbed.rpc.getBlockHeight({ commitment: 'finalized' }).send()) > lastValidBlockHeight,
    15_000,
  );
}

const EVERY_SLOT = { pollIntervalMs: 20 };

async function statusOf(entryId: string): Promise<string | undefined> {
  return (await db.selectFrom('solana_transactions').select('status').where('id', '=', entryId).executeTakeFirst())
    ?.status;
}

async function usdcOf(owner: string): Promise<bigint> {
  return (await readSolanaBalances(testbed.rpc, [owner], [testbed.usdc]))[owner]?.tokens[testbed.usdc] ?? 0n;
}

describe('an expired blockhash', () => {
  it('is refused before anything is journaled or sent', async () => {
    const paymentId = `pay_${randomUUID()}`;
    const { buyer, transfer, transaction } = await signedTransferFor('alice', 1_000_000n, paymentId);
    const balance = await usdcOf(buyer.address);
    await waitPast(transfer.lastValidBlockHeight);

    await expect(
      cosignAndConfirm(
        { sender, db },
        { purpose: 'payment', reference: paymentId, transaction, lastValidBlockHeight: transfer.lastValidBlockHeight },
        EVERY_SLOT,
      ),
    ).rejects.toBeInstanceOf(BlockhashExpiredError);
    expect(await usdcOf(buyer.address)).toBe(balance);
    expect(
      await db.selectFrom('solana_transactions').select('id').where('reference', '=', paymentId).execute(),
    ).toEqual([]);
  });

  it('expires a journaled transaction that never landed, without sending it, and frees the payment for a new one', async () => {
    const paymentId = `pay_${randomUUID()}`;
    const first = await signedTransferFor('bob', 2_000_000n, paymentId);
    const balance = await usdcOf(first.buyer.address);
    const entry = await sender.cosignAndRecord({
      purpose: 'payment',
      reference: paymentId,
      transaction: first.transaction,
      lastValidBlockHeight: first.transfer.lastValidBlockHeight,
    });
    await waitPast(first.transfer.lastValidBlockHeight);

    const restarted = countingRpc(testbed.devnet.manifest.solana.rpcUrl);
    const afterRestart = new SolanaTransactionSender({
      db,
      rpc: restarted.rpc,
      network: testbed.network,
      collector: testbed.collector,
      commitment: 'confirmed',
    });
    await afterRestart.follow();
    expect(await statusOf(entry.id)).toBe('expired');
    expect(restarted.sentTransactions()).toBe(0);
    await expect(followUntilFinal({ sender, db }, entry, EVERY_SLOT)).rejects.toBeInstanceOf(BlockhashExpiredError);
    expect(
      await testbed.rpc.getSignatureStatuses([toSignature(entry.signature)], { searchTransactionHistory: true }).send(),
    ).toMatchObject({ value: [null] });
    expect(await usdcOf(first.buyer.address)).toBe(balance);

    const second = await signedTransferFor('bob', 2_000_000n, paymentId);
    await cosignAndConfirm(
      { sender, db },
      {
        purpose: 'payment',
        reference: paymentId,
        transaction: second.transaction,
        lastValidBlockHeight: second.transfer.lastValidBlockHeight,
      },
      EVERY_SLOT,
    );
    expect(await usdcOf(first.buyer.address)).toBe(balance - 2_000_000n);
    const rows = await db
      .selectFrom('solana_transactions')
      .select(['status'])
      .where('reference', '=', paymentId)
      .orderBy('id')
      .execute();
    expect(rows.map((row) => row.status)).toEqual(['expired', 'confirmed']);
  });

  it('never sends a journaled transaction whose blockhash expired before its first send', async () => {
    const paymentId = `pay_${randomUUID()}`;
    const { buyer, transfer, transaction } = await signedTransferFor('alice', 1_000_000n, paymentId);
    const balance = await usdcOf(buyer.address);
    const entry = await sender.cosignAndRecord({
      purpose: 'payment',
      reference: paymentId,
      transaction,
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    });
    await waitPast(transfer.lastValidBlockHeight);
    await expect(followUntilFinal({ sender, db }, entry, EVERY_SLOT)).rejects.toBeInstanceOf(BlockhashExpiredError);
    expect(await usdcOf(buyer.address)).toBe(balance);
    expect(
      await db
        .selectFrom('solana_transactions')
        .select(['status', 'send_attempts'])
        .where('id', '=', entry.id)
        .executeTakeFirst(),
    ).toEqual({ status: 'expired', send_attempts: 0 });
  });
});
