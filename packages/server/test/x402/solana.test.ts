import type { AddressInfo } from 'node:net';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createKeyPairSignerFromBytes,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactSvmScheme as ExactSvmClientScheme } from '@x402/svm/exact/client';
import { ExactSvmScheme as ExactSvmServerScheme } from '@x402/svm/exact/server';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSolanaBalances } from '../../src/chains/solana/readSolanaBalances.ts';
import { solanaRpc } from '../../src/chains/solana/rpc.ts';
import { auditOfMerchant } from '../support/ledgerAudit.ts';
import { call } from '../support/testServer.ts';
import { listedPayment, SOLANA_DEVNET_CAIP2, startX402Testbed, type X402Testbed } from './support.ts';

const NETWORK = SOLANA_DEVNET_CAIP2 as `${string}:${string}`;
const PRICE = '1000';

let testbed: X402Testbed;
let mint: string;
let collector: string;
/** The merchant's own owner, whose token account its x402 payments on Solana pay. */
let payTo: string;

beforeAll(async () => {
  // The devnet's Solana node, followed as Solana Devnet: x402's SVM packages take no other Solana network.
  testbed = await startX402Testbed({ solanaCaip2: SOLANA_DEVNET_CAIP2 });
  mint = testbed.service.devnet.manifest.solana.tokens.find((token) => token.symbol === 'USDC')?.address as string;
  collector = testbed.service.services.solana.collector.address;
  const supported = await call(testbed.service.server, '/v1/x402/supported', { headers: testbed.headers() });
  payTo = supported.body.kinds.find((kind: { network: string }) => kind.network === NETWORK).extra.payTo;
});

afterAll(async () => {
  await testbed?.close();
});

async function buyerSigner(name: string): Promise<KeyPairSigner> {
  const buyer = testbed.service.devnet.manifest.buyers.find((candidate) => candidate.name === name);
  if (!buyer) throw new Error(`no devnet buyer ${name}`);
  return createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(buyer.solanaSecretKey)));
}

/** x402's own SVM client, reading the chain from the devnet's node. */
async function svmClient(name: string) {
  return new ExactSvmClientScheme(await buyerSigner(name), { rpcUrl: testbed.service.devnet.manifest.solana.rpcUrl });
}

function requirements(amount: string, extra: Record<string, unknown> = {}): PaymentRequirements {
  return {
    scheme: 'exact',
    network: NETWORK,
    asset: mint,
    amount,
    payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer: collector, ...extra },
  };
}

async function payload(name: string, accepted: PaymentRequirements): Promise<PaymentPayload> {
  const created = await (await svmClient(name)).createPaymentPayload(2, accepted);
  return { ...created, accepted } as PaymentPayload;
}

async function usdcOf(owner: string): Promise<bigint> {
  const balances = await readSolanaBalances(solanaRpc(testbed.service.devnet.manifest.solana.rpcUrl), [owner], [mint]);
  return balances[owner]?.tokens[mint] ?? 0n;
}

describe('x402 exact on Solana, through the facilitator', () => {
  it("settles x402's SVM client's transfer: exactly the amount to the merchant's token account, the collector paying the fee; a payment of the merchant", async () => {
    const buyer = (await buyerSigner('alice')).address;
    const accepted = requirements('250000');
    const signed = await payload('alice', accepted);
    const [buyerBefore, collectorBefore] = await Promise.all([usdcOf(buyer), usdcOf(collector)]);

    const verified = await testbed.facilitator('verify', signed, accepted);
    expect(verified.body).toEqual({ isValid: true, payer: buyer });
    const settled = await testbed.facilitator('settle', signed, accepted);
    expect(settled.body).toEqual({
      success: true,
      payer: buyer,
      transaction: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/),
      network: NETWORK,
      amount: '250000',
      extra: { paymentId: expect.stringMatching(/^pay_/) },
    });
    expect(await usdcOf(buyer)).toBe(buyerBefore - 250_000n);
    // Paid into the merchant's token account, then swept into the collector's.
    await expect.poll(() => usdcOf(collector), { timeout: 30_000, interval: 200 }).toBe(collectorBefore + 250_000n);
    expect(await usdcOf(payTo)).toBe(0n);

    const { item } = await listedPayment(testbed, settled.body.extra.paymentId);
    expect(item).toMatchObject({
      source: 'x402',
      status: 'succeeded',
      fiatAmount: { unit: 'iso4217/USD', value: '25' },
      tokenAmount: { unit: `caip19/${NETWORK}/token:${mint}`, value: '250000' },
      buyer: { accountCaip10: `${NETWORK}:${buyer}` },
      transaction: { hash: settled.body.transaction },
    });
    expect((await auditOfMerchant(testbed.service.server.db, testbed.merchantId)).differing).toEqual([]);

    const again = await testbed.facilitator('settle', signed, accepted);
    expect(again.body).toMatchObject({ success: false, errorReason: 'duplicate_settlement' });
    expect((await testbed.facilitator('verify', signed, accepted)).body).toMatchObject({
      isValid: false,
      invalidReason: 'duplicate_settlement',
    });
  });

  it('pays once when settles of one transaction arrive at once: one succeeds, the others are duplicate_settlement', async () => {
    const buyer = (await buyerSigner('erin')).address;
    const accepted = requirements('70000');
    const signed = await payload('erin', accepted);
    const before = await usdcOf(buyer);
    const answers = await Promise.all(Array.from({ length: 4 }, () => testbed.facilitator('settle', signed, accepted)));
    const succeeded = answers.filter((answer) => answer.body.success);
    expect(succeeded, JSON.stringify(answers.map((answer) => answer.body))).toHaveLength(1);
    for (const answer of answers.filter((candidate) => !candidate.body.success))
      expect(answer.body.errorReason).toBe('duplicate_settlement');
    expect(await usdcOf(buyer)).toBe(before - 70_000n);
    const payments = await testbed.service.server.db
      .selectFrom('x402_payments')
      .select('payment_id')
      .where('payer', '=', buyer)
      .execute();
    expect(payments).toEqual([{ payment_id: succeeded[0]?.body.extra.paymentId }]);
  });

  it('refuses, with x402 reasons, another amount, another fee payer, and a transfer to someone else', async () => {
    const signed = await payload('alice', requirements('1000'));
    expect((await testbed.facilitator('verify', signed, requirements('1001'))).body).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_svm_payload_amount_mismatch',
    });
    const stranger = (await generateKeyPairSigner()).address;
    expect(
      (await testbed.facilitator('verify', signed, requirements('1000', { feePayer: stranger }))).body,
    ).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
    });
    // The agent's transfer to another account, with the collector as fee payer.
    const elsewhere = await payload('alice', { ...requirements('1000'), payTo: stranger });
    expect((await testbed.facilitator('verify', elsewhere, requirements('1000'))).body).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_svm_payload_recipient_mismatch',
    });
  });

  it("refuses a transaction the collector would have signed for, and one whose agent's signature is not valid", async () => {
    const accepted = requirements('1000');
    const signed = await payload('alice', accepted);
    const transaction = getTransactionDecoder().decode(
      getBase64Encoder().encode((signed.payload as { transaction: string }).transaction),
    );
    const [feePayer, agent] = Object.keys(transaction.signatures) as (keyof typeof transaction.signatures)[];
    const withSignatures = (changes: Partial<Record<string, Uint8Array>>) => ({
      ...signed,
      payload: {
        transaction: getBase64EncodedWireTransaction({
          ...transaction,
          signatures: { ...transaction.signatures, ...changes } as typeof transaction.signatures,
        }),
      },
    });
    // Something in the collector's slot: the collector signs last, and only what it checked.
    const filled = withSignatures({ [feePayer as string]: new Uint8Array(64).fill(7) });
    // The agent's signature with one byte changed.
    const forged = new Uint8Array(transaction.signatures[agent as keyof typeof transaction.signatures] as Uint8Array);
    forged[0] = (forged[0] ?? 0) ^ 1;
    for (const tampered of [filled, withSignatures({ [agent as string]: forged })]) {
      expect((await testbed.facilitator('verify', tampered, accepted)).body).toMatchObject({
        isValid: false,
        invalidReason: 'invalid_exact_svm_payload_signature_invalid',
      });
    }
  });

  it("refuses a transaction that would move the collector's own tokens, whatever it pays the collector", async () => {
    const attacker = (await buyerSigner('alice')).address;
    const collectorSigner = createNoopSigner(address(collector));
    const [[source], [destination]] = await Promise.all([
      findAssociatedTokenPda({ owner: address(collector), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS }),
      findAssociatedTokenPda({ owner: attacker, mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS }),
    ]);
    const { value: latest } = await solanaRpc(testbed.service.devnet.manifest.solana.rpcUrl)
      .getLatestBlockhash()
      .send();
    const computeBudget = (data: number[]) => ({
      programAddress: address('ComputeBudget111111111111111111111111111111'),
      data: new Uint8Array(data),
    });
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayer(address(collector), draft),
      (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
      (draft) =>
        appendTransactionMessageInstructions(
          [
            computeBudget([2, 0x20, 0x4e, 0, 0]),
            computeBudget([3, 1, 0, 0, 0, 0, 0, 0, 0]),
            getTransferCheckedInstruction({
              source,
              mint: address(mint),
              destination,
              authority: collectorSigner,
              amount: 1000n,
              decimals: 6,
            }),
          ],
          draft,
        ),
    );
    const stealing = {
      x402Version: 2,
      accepted: requirements('1000'),
      payload: { transaction: getBase64EncodedWireTransaction(compileTransaction(message)) },
    } as PaymentPayload;
    for (const operation of ['verify', 'settle'] as const) {
      expect((await testbed.facilitator(operation, stealing, requirements('1000'))).body).toMatchObject({
        [operation === 'verify' ? 'invalidReason' : 'errorReason']:
          'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
      });
    }
  });

  it('refuses a buyer whose balance does not cover the amount (the simulation fails)', async () => {
    const accepted = requirements('1000');
    // Dave holds nothing on Solana.
    const signed = await payload('dave', accepted);
    expect((await testbed.facilitator('verify', signed, accepted)).body).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_svm_transaction_simulation_failed',
    });
  });
});

describe('an Express API charging per request on Solana through paygate', () => {
  it('answers 402, serves the paid retry of x402’s fetch client, and the payment is the merchant’s', async () => {
    const headers = testbed.headers();
    const facilitator = new HTTPFacilitatorClient({
      url: testbed.facilitatorUrl,
      createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
    });
    const app = express();
    app.use(
      paymentMiddleware(
        {
          'GET /quote': {
            accepts: { scheme: 'exact', network: NETWORK, payTo, price: { amount: PRICE, asset: mint } },
            description: 'A quote',
          },
        },
        new x402ResourceServer(facilitator).register(NETWORK, new ExactSvmServerScheme()),
      ),
    );
    app.get('/quote', (_request, response) => response.json({ quote: 42 }));
    const listening = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => listening.once('listening', resolve));
    const url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/quote`;
    try {
      const unpaid = await fetch(url);
      expect(unpaid.status).toBe(402);
      const required = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((name) =>
        unpaid.headers.get(name),
      );
      expect(required.accepts).toEqual([
        expect.objectContaining({ network: NETWORK, amount: PRICE, payTo, extra: { feePayer: collector } }),
      ]);

      const buyer = (await buyerSigner('bob')).address;
      const before = await usdcOf(buyer);
      const client = new x402Client()
        .register(NETWORK, await svmClient('bob'))
        .setSpendControls({ allowedAssets: [{ network: NETWORK, asset: mint }] });
      const paid = await wrapFetchWithPayment(fetch, client)(url);
      expect(paid.status).toBe(200);
      expect(await paid.json()).toEqual({ quote: 42 });
      const receipt = decodePaymentResponseHeader(paid.headers.get('payment-response') ?? '');
      expect(receipt).toMatchObject({ success: true, network: NETWORK, payer: buyer });
      expect(await usdcOf(buyer)).toBe(before - BigInt(PRICE));
      const { item } = await listedPayment(testbed, (receipt.extra as { paymentId: string }).paymentId);
      expect(item).toMatchObject({ source: 'x402', status: 'succeeded', tokenAmount: { value: PRICE } });
    } finally {
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    }
  });
});
