import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getTransactionEncoder,
  isSolanaError,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__JSON_RPC__METHOD_NOT_FOUND,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Instruction,
  type Rpc,
  type SolanaRpcApi,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMO_PROGRAM } from '../src/solana/accounts.ts';
import { FINALIZED_DEPTH, MAX_PROCESSING_AGE } from '../src/solana/ledger.ts';
import { startSolanaNode, type SolanaNode } from '../src/solana/node.ts';

// Fast slots, so that blockhash expiry (150 slots) and finality (32 slots) happen within the test.
const SLOT_MS = 10;

const dataDir = mkdtempSync(join(tmpdir(), 'paygate-solana-'));
let node: SolanaNode;
let rpc: Rpc<SolanaRpcApi>;
let payer: KeyPairSigner;
let payerAta: Address;
let mint: Address;

type Lifetime = { blockhash: Blockhash; lastValidBlockHeight: bigint };

async function buildTransfer(lifetime: Lifetime, instructions: Instruction[]) {
  return signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayerSigner(payer, draft),
      (draft) => setTransactionMessageLifetimeUsingBlockhash(lifetime, draft),
      (draft) => appendTransactionMessageInstructions(instructions, draft),
    ),
  );
}

async function solTransfer(lifetime: Lifetime, to: Address, amount: bigint) {
  return buildTransfer(lifetime, [
    getTransferSolInstruction({ source: payer, destination: to, amount: lamports(amount) }),
  ]);
}

async function rawCall(body: unknown): Promise<unknown> {
  const response = await fetch(node.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return response.json();
}

async function waitForSlot(slot: bigint): Promise<void> {
  while ((await rpc.getSlot().send()) < slot) await new Promise((resolve) => setTimeout(resolve, SLOT_MS));
}

async function statusOf(signature: Signature) {
  return (await rpc.getSignatureStatuses([signature]).send()).value[0];
}

beforeAll(async () => {
  node = await startSolanaNode({ dataDir, host: '127.0.0.1', port: 0, slotMs: SLOT_MS, log: () => undefined });
  rpc = createSolanaRpc(node.rpcUrl);
  payer = await generateKeyPairSigner();
  mint = address(node.usdcMint);
  await node.credit(payer.address, 10n, 500n);
  [payerAta] = await findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
});

afterAll(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('blockhash lifetime', () => {
  it('accepts a blockhash for 150 slots and rejects it afterwards', async () => {
    const { context, value: lifetime } = await rpc.getLatestBlockhash().send();
    const issuedAtSlot = context.slot;
    expect(lifetime.lastValidBlockHeight).toBe(issuedAtSlot + BigInt(MAX_PROCESSING_AGE));
    const recipient = (await generateKeyPairSigner()).address;

    // Well past the newest blockhash but inside its lifetime: a node accepts it.
    await waitForSlot(issuedAtSlot + 100n);
    expect((await rpc.getLatestBlockhash().send()).value.blockhash).not.toBe(lifetime.blockhash);
    expect((await rpc.isBlockhashValid(lifetime.blockhash).send()).value).toBe(true);
    const early = await solTransfer(lifetime, recipient, 1_000_000n);
    const earlySignature = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(early), { encoding: 'base64' })
      .send();
    expect((await statusOf(earlySignature))?.err).toBeNull();

    const started = performance.now();
    while ((await rpc.isBlockhashValid(lifetime.blockhash).send()).value)
      await new Promise((resolve) => setTimeout(resolve, 2));
    const expiredAtHeight = await rpc.getBlockHeight().send();
    console.log(
      `blockhash from slot ${issuedAtSlot} expired at block height ${expiredAtHeight} (${expiredAtHeight - issuedAtSlot} slots, ${SLOT_MS} ms slots, waited ${Math.round(performance.now() - started)} ms after the 100-slot check)`,
    );
    expect(expiredAtHeight).toBeGreaterThan(lifetime.lastValidBlockHeight);
    expect(expiredAtHeight - lifetime.lastValidBlockHeight).toBeLessThanOrEqual(3n);

    const late = await solTransfer(lifetime, recipient, 2_000_000n);
    const error = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(late), { encoding: 'base64' })
      .send()
      .catch((caught: unknown) => caught);
    expect(isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)).toBe(true);
    expect(isSolanaError((error as Error).cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)).toBe(true);

    // Without preflight a node returns the signature and drops the transaction.
    const droppedSignature = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(late), { encoding: 'base64', skipPreflight: true })
      .send();
    await waitForSlot((await rpc.getSlot().send()) + 2n);
    expect(await statusOf(droppedSignature)).toBeNull();
    expect((await rpc.getBalance(recipient).send()).value).toBe(1_000_000n);
  });
});

describe('transactions', () => {
  it('turns a failing transfer into a preflight error, or with skipPreflight into a landed failure that pays its fee', async () => {
    const other = await generateKeyPairSigner();
    const [otherAta] = await findAssociatedTokenPda({
      owner: other.address,
      mint,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const tooMuch = await buildTransfer(lifetime, [
      getCreateAssociatedTokenIdempotentInstruction({ payer, ata: otherAta, owner: other.address, mint }),
      getTransferCheckedInstruction({
        source: payerAta,
        mint,
        destination: otherAta,
        authority: payer,
        amount: 501_000_000n,
        decimals: 6,
      }),
    ]);
    const lamportsBefore = (await rpc.getBalance(payer.address).send()).value;

    const error = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(tooMuch), { encoding: 'base64' })
      .send()
      .catch((caught: unknown) => caught);
    expect(isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)).toBe(true);
    // SPL Token error 1 is InsufficientFunds.
    expect(isSolanaError((error as Error).cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)).toBe(true);
    expect((await rpc.getBalance(payer.address).send()).value).toBe(lamportsBefore);

    const signature = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(tooMuch), { encoding: 'base64', skipPreflight: true })
      .send();
    const status = await statusOf(signature);
    // The client turns every integer in an error into a bigint.
    expect(status?.err).toEqual({ InstructionError: [1n, { Custom: 1n }] });
    expect((await rpc.getBalance(payer.address).send()).value).toBe(lamportsBefore - 5000n);
    expect((await rpc.getTokenAccountBalance(payerAta).send()).value.amount).toBe('500000000');
    // The account created by the failed transaction's first instruction was rolled back too.
    expect((await rpc.getAccountInfo(otherAta).send()).value).toBeNull();
  });

  it('reports confirmation depth and serves the transaction as jsonParsed once confirmed', async () => {
    const other = await generateKeyPairSigner();
    const [otherAta] = await findAssociatedTokenPda({
      owner: other.address,
      mint,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const transfer = await buildTransfer(lifetime, [
      getCreateAssociatedTokenIdempotentInstruction({ payer, ata: otherAta, owner: other.address, mint }),
      getTransferCheckedInstruction({
        source: payerAta,
        mint,
        destination: otherAta,
        authority: payer,
        amount: 3_000_000n,
        decimals: 6,
      }),
      { programAddress: MEMO_PROGRAM as Address, data: new TextEncoder().encode('order 42') },
    ]);
    // The default encoding of sendTransaction is base58.
    const wire = getTransactionEncoder().encode(transfer);
    const signature = await rpc
      .sendTransaction(getBase58Decoder().decode(wire) as unknown as Base64EncodedWireTransaction)
      .send();
    const landedAt = (await statusOf(signature))?.slot;
    expect(landedAt).toBeDefined();

    await waitForSlot((landedAt ?? 0n) + 1n);
    expect((await statusOf(signature))?.confirmationStatus).toBe('confirmed');
    expect(
      await rpc
        .getTransaction(signature, { commitment: 'finalized', maxSupportedTransactionVersion: 0, encoding: 'json' })
        .send(),
    ).toBeNull();
    const parsed = await rpc
      .getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'jsonParsed' })
      .send();
    expect(parsed?.version).toBe(0);
    expect(parsed?.transaction.message.accountKeys[0]).toEqual({
      pubkey: payer.address,
      signer: true,
      writable: true,
      source: 'transaction',
    });
    expect(parsed?.transaction.message.instructions[1]).toMatchObject({
      program: 'spl-token',
      programId: TOKEN_PROGRAM_ADDRESS,
      parsed: {
        type: 'transferChecked',
        info: {
          source: payerAta,
          destination: otherAta,
          mint,
          authority: payer.address,
          tokenAmount: { amount: '3000000', decimals: 6n },
        },
      },
    });
    expect(parsed?.transaction.message.instructions[2]).toMatchObject({ program: 'spl-memo', parsed: 'order 42' });
    const history = await rpc.getSignaturesForAddress(other.address).send();
    expect(history.map((entry) => [entry.signature, entry.memo])).toEqual([[signature, '[8] order 42']]);

    await waitForSlot((landedAt ?? 0n) + BigInt(FINALIZED_DEPTH));
    expect(await statusOf(signature)).toMatchObject({ confirmationStatus: 'finalized', confirmations: null });
    expect(
      (await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send())?.slot,
    ).toBe(landedAt);
  });

  it('answers the newest slot at each commitment, and when each slot since its start began', async () => {
    const before = Math.floor(Date.now() / 1000);
    const start = await rpc.getSlot().send();
    await waitForSlot(start + BigInt(FINALIZED_DEPTH) + 2n);
    // One batch is answered at one slot.
    const answers = (await rawCall(
      ['processed', 'confirmed', 'finalized'].map((commitment, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'getSlot',
        params: [{ commitment }],
      })),
    )) as { id: number; result: number }[];
    const [processed = 0n, confirmed, finalized] = answers
      .sort((a, b) => a.id - b.id)
      .map((answer) => BigInt(answer.result));
    expect(processed - (confirmed as bigint)).toBe(1n);
    expect(processed - (finalized as bigint)).toBe(BigInt(FINALIZED_DEPTH));
    const time = Number(await rpc.getBlockTime(start).send());
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(Number(await rpc.getBlockTime(processed).send())).toBeGreaterThanOrEqual(time);
    await expect(rpc.getBlockTime(processed + 1000n).send()).rejects.toThrow(/-32009|missing in long-term storage/);
  });

  it('airdrops, simulates unsigned transactions and prices messages', async () => {
    const wallet = await generateKeyPairSigner();
    const airdropSignature = await rpc.requestAirdrop(wallet.address, lamports(2_000_000_000n)).send();
    expect((await statusOf(airdropSignature))?.err).toBeNull();
    expect((await rpc.getBalance(wallet.address).send()).value).toBe(2_000_000_000n);

    // A wallet simulates before it signs: no signatures, a stale blockhash replaced by the node.
    const unsigned = compileTransaction(
      pipe(
        createTransactionMessage({ version: 0 }),
        (draft) => setTransactionMessageFeePayerSigner(wallet, draft),
        (draft) =>
          setTransactionMessageLifetimeUsingBlockhash(
            { blockhash: '11111111111111111111111111111111' as Blockhash, lastValidBlockHeight: 0n },
            draft,
          ),
        (draft) =>
          appendTransactionMessageInstructions(
            [getTransferSolInstruction({ source: wallet, destination: payer.address, amount: lamports(5n) })],
            draft,
          ),
      ),
    );
    const simulated = await rpc
      .simulateTransaction(getBase64EncodedWireTransaction(unsigned), {
        encoding: 'base64',
        replaceRecentBlockhash: true,
      })
      .send();
    expect(simulated.value.err).toBeNull();
    expect(simulated.value.logs?.some((line) => line.includes('11111111111111111111111111111111 success'))).toBe(true);
    const replacement = simulated.value.replacementBlockhash?.blockhash;
    expect(replacement).toBeDefined();
    expect((await rpc.isBlockhashValid(replacement as Blockhash).send()).value).toBe(true);
    expect((await rpc.getBalance(wallet.address).send()).value).toBe(2_000_000_000n);

    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const message = compileTransaction(
      pipe(
        createTransactionMessage({ version: 0 }),
        (draft) => setTransactionMessageFeePayerSigner(wallet, draft),
        (draft) => setTransactionMessageLifetimeUsingBlockhash(lifetime, draft),
        (draft) =>
          appendTransactionMessageInstructions(
            [getTransferSolInstruction({ source: wallet, destination: payer.address, amount: lamports(5n) })],
            draft,
          ),
      ),
    ).messageBytes;
    const fee = await rpc.getFeeForMessage(getBase64Decoder().decode(message) as never).send();
    expect(fee.value).toBe(5000n);
    expect(await rpc.getMinimumBalanceForRentExemption(165n).send()).toBe(2_039_280n);
  });
});

describe('JSON-RPC protocol', () => {
  it('answers batches, unknown methods and malformed bodies like a node', async () => {
    const batch = (await rawCall([
      { jsonrpc: '2.0', id: 1, method: 'getHealth' },
      { jsonrpc: '2.0', id: 2, method: 'getGenesisHash' },
      { jsonrpc: '2.0', id: 3, method: 'getBlockProduction' },
      { jsonrpc: '2.0', id: 4, method: 'getBalance', params: ['not-an-address'] },
    ])) as { id: number; result?: unknown; error?: { code: number } }[];
    expect(batch.map((entry) => entry.id)).toEqual([1, 2, 3, 4]);
    expect(batch[0]?.result).toBe('ok');
    expect(typeof batch[1]?.result).toBe('string');
    expect(batch[2]?.error?.code).toBe(-32601);
    expect(batch[3]?.error?.code).toBe(-32602);
    expect(await rawCall('{not json')).toMatchObject({ error: { code: -32700 }, id: null });
    expect(await rawCall([])).toMatchObject({ error: { code: -32600 } });

    const error = await (rpc as unknown as { getBlockProduction: () => { send: () => Promise<unknown> } })
      .getBlockProduction()
      .send()
      .catch((caught: unknown) => caught);
    expect(isSolanaError(error, SOLANA_ERROR__JSON_RPC__METHOD_NOT_FOUND)).toBe(true);
    const version = await rpc.getVersion().send();
    expect(version['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
