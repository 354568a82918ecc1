import { randomUUID } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  decompileTransactionMessage,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  lamports,
  signBytes,
  signature as toSignature,
  type Base64EncodedWireTransaction,
  type Transaction,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  buildSponsoredTransfer,
  solanaSignTransactionAction,
} from '../../../src/chains/solana/buildSponsoredTransfer.ts';
import {
  SignedTransactionRejectedError,
  SolanaTransactionConflictError,
  SolanaTransactionRejectedError,
} from '../../../src/chains/solana/errors.ts';
import { readSolanaBalances } from '../../../src/chains/solana/readSolanaBalances.ts';
import {
  type CosignRequest,
  commitmentFor,
  SolanaTransactionSender,
} from '../../../src/chains/solana/transactionSender.ts';
import { verifyBuyerSignedTransaction } from '../../../src/chains/solana/verifyBuyerSignedTransaction.ts';
import { connect, type Db } from '../../../src/db/database.ts';
import { cosignAndConfirm } from '../../support/chainWaits.ts';
import { countingRpc, signAsWallet, startSolanaTestbed, waitFor, type SolanaTestbed } from './solanaTestKit.ts';

let testbed: SolanaTestbed;
let db: Db;
let sender: SolanaTransactionSender;

beforeAll(async () => {
  testbed = await startSolanaTestbed();
  db = connect(inject('databaseUrl'), 2);
  await testbed.recordOperatorFunding(db);
  sender = newSender();
});

afterAll(async () => {
  await db?.destroy();
  await testbed?.close();
});

function newSender(rpc = testbed.rpc): SolanaTransactionSender {
  return new SolanaTransactionSender({
    db,
    rpc,
    network: testbed.network,
    collector: testbed.collector,
    commitment: 'confirmed',
  });
}

/** Co-signs, journals and sends as a confirm does, then follows the network until the transfer is final. */
function cosignSendAndConfirm(request: CosignRequest) {
  return cosignAndConfirm({ sender, db }, request, { pollIntervalMs: 100 });
}

const newPaymentId = () => `pay_${randomUUID()}`;

async function usdcOf(...owners: string[]) {
  return readSolanaBalances(testbed.rpc, owners, [testbed.usdc]);
}

async function buildFor(buyer: string, amount: bigint, paymentId = newPaymentId()) {
  const transfer = await buildSponsoredTransfer({
    rpc: testbed.rpc,
    collector: testbed.collector.address,
    buyer,
    mint: testbed.usdc,
    decimals: 6,
    amount,
    paymentId,
  });
  return { transfer, paymentId };
}

type Buyer = Awaited<ReturnType<SolanaTestbed['buyer']>>;

/** A transfer built for the buyer, signed as its wallet would and verified as the confirm route does. */
async function signedAndVerified(buyer: Buyer, amount: bigint, paymentId = newPaymentId()) {
  const { transfer } = await buildFor(buyer.address, amount, paymentId);
  const verified = await verifyBuyerSignedTransaction({
    signedTransactionBase64: await signAsWallet(transfer.transactionBase64, buyer.keyPair),
    expectedMessageBytesBase64: transfer.messageBytesBase64,
    buyer: buyer.address,
  });
  return { transfer, paymentId, verified };
}

async function journalRows(reference: string) {
  return db.selectFrom('solana_transactions').selectAll().where('reference', '=', reference).execute();
}

function reencode(transaction: Transaction): string {
  return getBase64EncodedWireTransaction(transaction);
}

describe('a sponsored USDC transfer on the devnet', () => {
  it('is built, signed by a buyer without SOL, verified, co-signed, sent and confirmed; the collector pays the fees', async () => {
    const erin = await testbed.buyer('erin');
    const collector = testbed.collector.address;
    const before = await usdcOf(erin.address, collector);
    expect(before[erin.address]?.lamports).toBe(0n);
    expect(before[collector]?.tokens[testbed.usdc]).toBe(0n);

    const amount = 12_345_678n;
    const { transfer, paymentId } = await buildFor(erin.address, amount);
    const action = solanaSignTransactionAction(transfer);
    expect(action.method).toBe('solana_signTransaction');
    const [{ transaction }] = JSON.parse(action.params) as [{ transaction: string }];
    expect(transaction).toBe(transfer.transactionBase64);

    const signed = await signAsWallet(transaction, erin.keyPair);
    const verified = await verifyBuyerSignedTransaction({
      signedTransactionBase64: signed,
      expectedMessageBytesBase64: transfer.messageBytesBase64,
      buyer: erin.address,
    });
    const landed = await cosignSendAndConfirm({
      purpose: 'payment',
      reference: paymentId,
      transaction: verified,
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    });

    const after = await usdcOf(erin.address, collector);
    expect(after[erin.address]?.tokens[testbed.usdc]).toBe((before[erin.address]?.tokens[testbed.usdc] ?? 0n) - amount);
    expect(after[collector]?.tokens[testbed.usdc]).toBe(amount);
    expect(after[erin.address]?.lamports).toBe(0n);

    const onChain = await testbed.rpc
      .getTransaction(toSignature(landed.signature), {
        commitment: 'confirmed',
        encoding: 'jsonParsed',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    if (!onChain?.meta) throw new Error('the transaction is not on chain');
    expect(onChain.meta.err).toBeNull();
    expect(onChain.transaction.message.accountKeys[0]?.pubkey).toBe(collector);
    const instructions = onChain.transaction.message.instructions as unknown as {
      program?: string;
      parsed?: unknown;
    }[];
    expect(
      instructions.filter((instruction) => instruction.program === 'spl-memo').map((instruction) => instruction.parsed),
    ).toEqual([paymentId]);
    // The collector paid the fee and the rent of its new token account, nothing else.
    const rent = await testbed.rpc.getMinimumBalanceForRentExemption(165n).send();
    expect(before[collector]!.lamports - after[collector]!.lamports).toBe(onChain.meta.fee + rent);

    const [row] = await journalRows(paymentId);
    expect(row).toMatchObject({
      signature: landed.signature,
      status: 'confirmed',
      send_attempts: 1,
      purpose: 'payment',
    });
    expect(row?.wire_transaction.toString('base64')).not.toBe(signed);
  });

  it('counts a transfer only once it is finalized when the network asks for more than one confirmation', async () => {
    expect([commitmentFor(1), commitmentFor(2), commitmentFor(32)]).toEqual(['confirmed', 'finalized', 'finalized']);
    const finalizing = new SolanaTransactionSender({
      db,
      rpc: testbed.rpc,
      network: testbed.network,
      collector: testbed.collector,
      commitment: commitmentFor(32),
    });
    const erin = await testbed.buyer('erin');
    const { transfer, paymentId, verified } = await signedAndVerified(erin, 1_000n);
    const entry = await finalizing.cosignAndRecord({
      purpose: 'payment',
      reference: paymentId,
      transaction: verified,
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    });
    await finalizing.sendJournaled(entry);
    const statusOnNode = async () =>
      (await testbed.rpc.getSignatureStatuses([toSignature(entry.signature)]).send()).value[0]?.confirmationStatus;

    await waitFor(async () => (await statusOnNode()) === 'confirmed');
    await finalizing.follow();
    expect((await journalRows(paymentId))[0]?.status).toBe('sent');

    await waitFor(async () => (await statusOnNode()) === 'finalized', 30_000, 200);
    await finalizing.follow();
    expect((await journalRows(paymentId))[0]).toMatchObject({ status: 'confirmed', signature: entry.signature });
  });

  it('reuses the collector token account on the next payment, so the collector pays only the fee', async () => {
    const alice = await testbed.buyer('alice');
    const collector = testbed.collector.address;
    const before = await usdcOf(alice.address, collector);
    const { transfer, paymentId, verified } = await signedAndVerified(alice, 1_000_000n);
    const landed = await cosignSendAndConfirm({
      purpose: 'payment',
      reference: paymentId,
      transaction: verified,
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    });

    const after = await usdcOf(alice.address, collector);
    const onChain = await testbed.rpc
      .getTransaction(toSignature(landed.signature), {
        commitment: 'confirmed',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    expect(after[collector]!.tokens[testbed.usdc]! - before[collector]!.tokens[testbed.usdc]!).toBe(1_000_000n);
    expect(before[alice.address]!.tokens[testbed.usdc]! - after[alice.address]!.tokens[testbed.usdc]!).toBe(1_000_000n);
    expect(before[collector]!.lamports - after[collector]!.lamports).toBe(onChain!.meta!.fee);
    expect(after[alice.address]!.lamports).toBe(before[alice.address]!.lamports);

    // Confirming the same signed transaction again finds it in the journal instead of sending anything.
    const again = await cosignSendAndConfirm({
      purpose: 'payment',
      reference: paymentId,
      transaction: verified,
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    });
    expect(again.signature).toBe(landed.signature);
    expect((await usdcOf(alice.address))[alice.address]!.tokens[testbed.usdc]).toBe(
      after[alice.address]!.tokens[testbed.usdc],
    );

    // A different transaction for a payment that already has one is never sent.
    const second = await signedAndVerified(alice, 1_000_000n, paymentId);
    await expect(
      cosignSendAndConfirm({
        purpose: 'payment',
        reference: paymentId,
        transaction: second.verified,
        lastValidBlockHeight: second.transfer.lastValidBlockHeight,
      }),
    ).rejects.toBeInstanceOf(SolanaTransactionConflictError);
    expect((await usdcOf(alice.address))[alice.address]!.tokens[testbed.usdc]).toBe(
      after[alice.address]!.tokens[testbed.usdc],
    );
  });
});

describe('refusals move no money', () => {
  let bob: { address: string; keyPair: CryptoKeyPair };
  let balancesBefore: Awaited<ReturnType<typeof usdcOf>>;

  beforeAll(async () => {
    bob = await testbed.buyer('bob');
    balancesBefore = await usdcOf(bob.address, testbed.collector.address);
  });

  async function expectRefusal(signedTransactionBase64: string, expectedMessageBytesBase64: string, code: string) {
    const refusal = verifyBuyerSignedTransaction({
      signedTransactionBase64,
      expectedMessageBytesBase64,
      buyer: bob.address,
    });
    await expect(refusal).rejects.toBeInstanceOf(SignedTransactionRejectedError);
    await expect(refusal).rejects.toMatchObject({ code });
  }

  it('refuses a message with one byte changed, even when the buyer signed the changed message', async () => {
    const { transfer } = await buildFor(bob.address, 2_000_000n);
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(transfer.transactionBase64));
    const messageBytes = new Uint8Array(transaction.messageBytes);
    const last = messageBytes.length - 1;
    messageBytes[last] = (messageBytes[last] ?? 0) ^ 0x01;
    const tampered = { ...transaction, messageBytes: messageBytes as unknown as Transaction['messageBytes'] };
    const signed = await signAsWallet(reencode(tampered), bob.keyPair);
    await expectRefusal(signed, transfer.messageBytesBase64, 'message_changed');
  });

  it('refuses a transaction with an extra instruction', async () => {
    const { transfer } = await buildFor(bob.address, 2_000_000n);
    const compiled = getCompiledTransactionMessageDecoder().decode(
      getBase64Encoder().encode(transfer.messageBytesBase64),
    );
    const message = decompileTransactionMessage(compiled as Parameters<typeof decompileTransactionMessage>[0], {
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    });
    const extended = appendTransactionMessageInstructions(
      [
        getTransferSolInstruction({
          source: createNoopSigner(address(testbed.collector.address)),
          destination: address(bob.address),
          amount: lamports(1_000_000_000n),
        }),
      ],
      message,
    );
    const signed = await signAsWallet(reencode(compileTransaction(extended)), bob.keyPair);
    await expectRefusal(signed, transfer.messageBytesBase64, 'message_changed');
  });

  it("refuses a signature by another key in the buyer's slot", async () => {
    const { transfer } = await buildFor(bob.address, 2_000_000n);
    const dave = await testbed.buyer('dave');
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(transfer.transactionBase64));
    const forged = {
      ...transaction,
      signatures: {
        ...transaction.signatures,
        [bob.address]: await signBytes(dave.keyPair.privateKey, transaction.messageBytes),
      },
    };
    await expectRefusal(reencode(forged), transfer.messageBytesBase64, 'invalid_signature');
  });

  it('refuses a transaction signed over a different blockhash', async () => {
    const first = await buildFor(bob.address, 2_000_000n);
    let second = await buildFor(bob.address, 2_000_000n, first.paymentId);
    while (second.transfer.blockhash === first.transfer.blockhash)
      second = await buildFor(bob.address, 2_000_000n, first.paymentId);
    const signed = await signAsWallet(second.transfer.transactionBase64, bob.keyPair);
    await expectRefusal(signed, first.transfer.messageBytesBase64, 'message_changed');
  });

  it('refuses an unsigned, truncated, lengthened or undecodable transaction and a filled collector slot', async () => {
    const { transfer } = await buildFor(bob.address, 2_000_000n);
    await expectRefusal(transfer.transactionBase64, transfer.messageBytesBase64, 'missing_signature');
    const signed = await signAsWallet(transfer.transactionBase64, bob.keyPair);
    const signedBytes = new Uint8Array(getBase64Encoder().encode(signed));
    await expectRefusal(getBase64Decoder().decode(signedBytes.slice(0, 40)), transfer.messageBytesBase64, 'malformed');
    await expectRefusal(
      getBase64Decoder().decode(new Uint8Array([...signedBytes, 0])),
      transfer.messageBytesBase64,
      'message_changed',
    );
    await expectRefusal('not base64!', transfer.messageBytesBase64, 'malformed');
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(signed));
    const collectorSlotFilled = {
      ...transaction,
      signatures: {
        ...transaction.signatures,
        [testbed.collector.address]: await signBytes(bob.keyPair.privateKey, transaction.messageBytes),
      },
    };
    await expectRefusal(reencode(collectorSlotFilled), transfer.messageBytesBase64, 'unexpected_signature');
  });

  it('refuses a buyer without the tokens (dave) at the node, before anything lands', async () => {
    const dave = await testbed.buyer('dave');
    const collectorBefore = await usdcOf(testbed.collector.address);
    const { transfer, paymentId, verified } = await signedAndVerified(dave, 1_000_000n);
    const refusal = await cosignSendAndConfirm({
      purpose: 'payment',
      reference: paymentId,
      transaction: verified,
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SolanaTransactionRejectedError);
    // The token program refuses: dave has no USDC account to transfer from.
    expect((refusal as SolanaTransactionRejectedError).logs.at(-1)).toMatch(/^Program Tokenkeg\w+ failed/);
    expect(await usdcOf(testbed.collector.address)).toEqual(collectorBefore);
    const [row] = await journalRows(paymentId);
    expect(row).toMatchObject({ status: 'failed', send_attempts: 1 });
    expect(
      await testbed.rpc.getSignatureStatuses([toSignature(row!.signature)], { searchTransactionHistory: true }).send(),
    ).toMatchObject({ value: [null] });
  });

  afterAll(async () => {
    expect(await usdcOf(bob.address, testbed.collector.address)).toEqual(balancesBefore);
  });
});

describe('the journal after a restart', () => {
  it('sends a transaction that was journaled but never sent, exactly once', async () => {
    const alice = await testbed.buyer('alice');
    const collector = testbed.collector.address;
    const before = await usdcOf(alice.address, collector);
    const { transfer, paymentId, verified } = await signedAndVerified(alice, 3_000_000n);
    // The process stops right after journaling.
    const entry = await sender.cosignAndRecord({
      purpose: 'payment',
      reference: paymentId,
      transaction: verified,
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    });
    expect(entry.status).toBe('recorded');
    expect(await testbed.rpc.getSignatureStatuses([toSignature(entry.signature)]).send()).toMatchObject({
      value: [null],
    });

    const restarted = countingRpc(testbed.devnet.manifest.solana.rpcUrl);
    const afterRestart = newSender(restarted.rpc);
    await waitFor(async () => {
      await afterRestart.follow();
      return (await journalRows(paymentId))[0]?.status === 'confirmed';
    });
    expect(restarted.sentTransactions()).toBe(1);
    await afterRestart.follow();
    expect(restarted.sentTransactions()).toBe(1);

    const after = await usdcOf(alice.address, collector);
    expect(before[alice.address]!.tokens[testbed.usdc]! - after[alice.address]!.tokens[testbed.usdc]!).toBe(3_000_000n);
    expect(after[collector]!.tokens[testbed.usdc]! - before[collector]!.tokens[testbed.usdc]!).toBe(3_000_000n);
    expect((await journalRows(paymentId))[0]).toMatchObject({ status: 'confirmed', send_attempts: 1 });
  });

  it('finds a transaction that was sent before the restart and does not send it again', async () => {
    const alice = await testbed.buyer('alice');
    const before = await usdcOf(alice.address);
    const { transfer, paymentId, verified } = await signedAndVerified(alice, 4_000_000n);
    // The process counts its attempt, sends the journaled bytes and stops before it learns the outcome.
    const entry = await sender.cosignAndRecord({
      purpose: 'payment',
      reference: paymentId,
      transaction: verified,
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    });
    await db
      .updateTable('solana_transactions')
      .set({ status: 'sent', send_attempts: 1, first_sent_at: new Date() })
      .where('id', '=', entry.id)
      .execute();
    await testbed.rpc
      .sendTransaction(entry.wire_transaction.toString('base64') as Base64EncodedWireTransaction, {
        encoding: 'base64',
      })
      .send();
    await waitFor(
      async () =>
        (await testbed.rpc.getSignatureStatuses([toSignature(entry.signature)]).send()).value[0]?.confirmationStatus ===
        'confirmed',
    );

    const restarted = countingRpc(testbed.devnet.manifest.solana.rpcUrl);
    await newSender(restarted.rpc).follow();
    expect((await journalRows(paymentId))[0]?.status).toBe('confirmed');
    expect(restarted.sentTransactions()).toBe(0);

    const after = await usdcOf(alice.address);
    expect(before[alice.address]!.tokens[testbed.usdc]! - after[alice.address]!.tokens[testbed.usdc]!).toBe(4_000_000n);
    expect((await journalRows(paymentId))[0]).toMatchObject({ status: 'confirmed', send_attempts: 1 });
  });
});
