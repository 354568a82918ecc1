import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  type KeyPairSigner,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactSvmScheme as ExactSvmClientScheme } from '@x402/svm/exact/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSolanaBalances } from '../../src/chains/solana/readSolanaBalances.ts';
import { solanaRpc } from '../../src/chains/solana/rpc.ts';
import { systemClock } from '../../src/clock.ts';
import { askInflowReturn, InflowReturnWorker } from '../../src/collectorInflows/inflowReturns.ts';
import {
  auditCollector,
  auditDepositAddresses,
  auditNegativeBalances,
  auditUnsolicitedInflows,
  finalReadPoints,
  readAuditedLedger,
} from '../../src/ledger/audit.ts';
import { solanaBalanceReader } from '../../src/composition/collectorAudit.ts';
import { createApiKey } from '../../src/partners/partners.ts';
import { payoutSenders } from '../../src/payouts/index.ts';
import { sendAsWallet } from '../solanaPay/support.ts';
import { createMerchant } from '../support/fixtures.ts';
import { auditOfMerchant, ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { call, newPartner } from '../support/testServer.ts';
import { SOLANA_DEVNET_CAIP2, startX402Testbed, type X402Testbed } from './support.ts';

const NETWORK = SOLANA_DEVNET_CAIP2 as `${string}:${string}`;
/** How long a transfer into the collector's accounts waits for a record to hold it before it is judged unsolicited. */
const JUDGED_AFTER_MS = 5_000;
const RECIPIENT_MISMATCH = 'invalid_exact_svm_payload_recipient_mismatch';

let testbed: X402Testbed;
let mint: string;
let asset: string;
let collector: string;
/** Merchant B: another partner's merchant with an x402 key of its own, which would take A's buyers' payloads. */
let other: { merchantId: string; headers: Record<string, string> };

/** The Solana kind of `GET /v1/x402/supported` for the merchant of `headers`. */
async function solanaKind(headers: Record<string, string>) {
  const supported = await call(testbed.service.server, '/v1/x402/supported', { headers });
  expect(supported.status, supported.text).toBe(200);
  return supported.body.kinds.find((kind: { network: string }) => kind.network === NETWORK) as {
    extra: { payTo: string; feePayer: string };
  };
}

async function buyerSigner(name: string): Promise<KeyPairSigner> {
  const buyer = testbed.service.devnet.manifest.buyers.find((candidate) => candidate.name === name);
  if (!buyer) throw new Error(`no devnet buyer ${name}`);
  return createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(buyer.solanaSecretKey)));
}

function requirements(amount: string, payTo: string): PaymentRequirements {
  return {
    scheme: 'exact',
    network: NETWORK,
    asset: mint,
    amount,
    payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer: collector },
  };
}

/** x402's own SVM client's payload for the requirements. */
async function payload(name: string, accepted: PaymentRequirements): Promise<PaymentPayload> {
  const client = new ExactSvmClientScheme(await buyerSigner(name), {
    rpcUrl: testbed.service.devnet.manifest.solana.rpcUrl,
  });
  return { ...(await client.createPaymentPayload(2, accepted)), accepted } as PaymentPayload;
}

async function tokenAccountOf(owner: string): Promise<string> {
  const [account] = await findAssociatedTokenPda({
    owner: address(owner),
    mint: address(mint),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  return account;
}

async function usdcOf(owner: string): Promise<bigint> {
  const balances = await readSolanaBalances(solanaRpc(testbed.service.devnet.manifest.solana.rpcUrl), [owner], [mint]);
  return balances[owner]?.tokens[mint] ?? 0n;
}

function paymentsOf(merchantId: string) {
  return testbed.service.server.db
    .selectFrom('payments')
    .select(['id', 'status'])
    .where('merchant_id', '=', merchantId)
    .execute();
}

/** The differences `paygate audit` finds in the Solana USDC: the collector's and the deposit addresses'. */
async function auditedDifferences() {
  const { server, chains, services } = testbed.service;
  const readPoints = finalReadPoints((network) => services.evm.clients.for(network));
  const ledger = await readAuditedLedger(server.db);
  const senders = payoutSenders({ db: server.db, chains, services, clock: systemClock });
  // No deposit is made on the EVM networks here: their deposit addresses are not read.
  const unusedEvmReader = () => Promise.reject(new Error('no EVM deposit address is read here'));
  const differenceOf = (lines: { asset: string; difference: string }[]) =>
    lines.find((line) => line.asset === asset)?.difference ?? '0';
  return {
    collector: differenceOf(await auditCollector(ledger, chains, senders, readPoints)),
    depositAddresses: differenceOf(
      await auditDepositAddresses(ledger, chains, unusedEvmReader, readPoints, solanaBalanceReader(services.solana)),
    ),
  };
}

beforeAll(async () => {
  testbed = await startX402Testbed({ solanaCaip2: SOLANA_DEVNET_CAIP2, buyerTransferDeadlineMs: JUDGED_AFTER_MS });
  const token = testbed.service.chains.networks
    .find((network) => network.caip2 === NETWORK)
    ?.tokens.find((candidate) => candidate.symbol === 'USDC');
  if (!token) throw new Error('the devnet has no Solana USDC');
  mint = token.address;
  asset = token.caip19;
  collector = testbed.service.services.solana.collector.address;
  const { server } = testbed.service;
  const partner = await newPartner(server.db, 'Other Solana x402 partner');
  const { apiKey } = await createApiKey(server.db, partner.partnerId, ['x402']);
  const merchantId = (await createMerchant(server, partner.apiKey)).id;
  other = { merchantId, headers: testbed.headers(merchantId, apiKey) };
});

afterAll(async () => {
  await testbed?.close();
});

describe("x402 payTo on Solana: each merchant's own token account, named by the buyer's transfer", () => {
  it('gives each merchant an owner of its own, not the collector (the fee payer), whose token account exists once served', async () => {
    const [kindA, kindB] = [await solanaKind(testbed.headers()), await solanaKind(other.headers)];
    expect(kindA.extra.payTo).not.toBe(kindB.extra.payTo);
    for (const kind of [kindA, kindB]) {
      expect(kind.extra.payTo).not.toBe(collector);
      expect(kind.extra.feePayer).toBe(collector);
      // x402's SVM transaction cannot create the account it pays: the service made it before answering.
      const { value } = await solanaRpc(testbed.service.devnet.manifest.solana.rpcUrl)
        .getAccountInfo(address(await tokenAccountOf(kind.extra.payTo)), { encoding: 'base64' })
        .send();
      expect(value?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    }
    expect((await solanaKind(testbed.headers())).extra.payTo).toBe(kindA.extra.payTo);
  });

  it("creates a new merchant's token account once, however many requests for its requirements arrive at once", async () => {
    const { server } = testbed.service;
    const partner = await newPartner(server.db, 'Third Solana x402 partner');
    const { apiKey } = await createApiKey(server.db, partner.partnerId, ['x402']);
    const merchantId = (await createMerchant(server, partner.apiKey)).id;
    const kinds = await Promise.all(Array.from({ length: 4 }, () => solanaKind(testbed.headers(merchantId, apiKey))));
    const payTo = testbed.service.services.solana.collector.merchantOwner(merchantId);
    expect(kinds.map((kind) => kind.extra.payTo)).toEqual([payTo, payTo, payTo, payTo]);
    const account = await tokenAccountOf(payTo);
    const created = await server.db
      .selectFrom('solana_transactions')
      .select('status')
      .where('purpose', '=', 'x402_pay_to_account')
      .where('reference', '=', `${NETWORK}:${account}`)
      .execute();
    expect(created).toHaveLength(1);
    expect(await usdcOf(payTo)).toBe(0n);
    const { value } = await solanaRpc(testbed.service.devnet.manifest.solana.rpcUrl)
      .getAccountInfo(address(account), { encoding: 'base64' })
      .send();
    expect(value?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
  });

  it("refuses merchant A's payload when B verifies or settles it, recording nothing; A's own settle pays A's token account, swept to the collector, and a replay is refused", async () => {
    const payToA = (await solanaKind(testbed.headers())).extra.payTo;
    const payToB = (await solanaKind(other.headers)).extra.payTo;
    const accepted = requirements('125000', payToA);
    const signed = await payload('alice', accepted);
    const buyer = (await buyerSigner('alice')).address;
    const buyerBefore = await usdcOf(buyer);
    const paymentsOfB = await paymentsOf(other.merchantId);

    // B's resource server passes A's payload on, with A's requirements or with its own payTo in them.
    for (const asked of [accepted, requirements('125000', payToB)]) {
      const verified = await testbed.facilitator('verify', signed, asked, other.headers);
      expect(verified.body, verified.text).toMatchObject({ isValid: false, invalidReason: RECIPIENT_MISMATCH });
      const settled = await testbed.facilitator('settle', signed, asked, other.headers);
      expect(settled.body, settled.text).toMatchObject({
        success: false,
        errorReason: RECIPIENT_MISMATCH,
        transaction: '',
      });
    }
    expect(await paymentsOf(other.merchantId)).toEqual(paymentsOfB);
    expect(await usdcOf(buyer)).toBe(buyerBefore);

    const collectorBefore = await usdcOf(collector);
    const settled = await testbed.facilitator('settle', signed, accepted);
    expect(settled.body, settled.text).toMatchObject({ success: true, amount: '125000', payer: buyer });
    const { paymentId } = settled.body.extra;
    expect(await usdcOf(buyer)).toBe(buyerBefore - 125_000n);
    const db = testbed.service.server.db;
    const payment = await db
      .selectFrom('payments')
      .select(['merchant_id', 'status', 'settlement_amount'])
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect(payment).toMatchObject({ merchant_id: testbed.merchantId, status: 'succeeded' });
    expect(await ledgerBalanceOf(db, `merchant:${testbed.merchantId}`, asset)).toBeGreaterThanOrEqual(
      BigInt(payment.settlement_amount ?? '0'),
    );
    expect(await ledgerBalanceOf(db, `merchant:${other.merchantId}`, asset)).toBe(0n);

    // The merchant's token account is swept into the collector's; the ledger says where the money is at every step.
    await expect.poll(() => usdcOf(collector), { timeout: 30_000, interval: 200 }).toBe(collectorBefore + 125_000n);
    expect(await usdcOf(payToA)).toBe(0n);
    await expect
      .poll(auditedDifferences, { timeout: 30_000, interval: 200 })
      .toEqual({ collector: '0', depositAddresses: '0' });
    // Recorded as a deposit at A's token account, then swept once through the journal.
    const transaction = settled.body.transaction as string;
    const entries = await db
      .selectFrom('ledger_entries')
      .select(['entry', 'account', 'amount'])
      .where('entry', 'in', [`x402_svm_deposit:${NETWORK}:${transaction}`, `x402_svm_swept:${NETWORK}:${transaction}`])
      .orderBy('entry')
      .orderBy('account')
      .execute();
    expect(entries.map(({ entry, account, amount }) => [entry.split(':')[0], account, String(amount)])).toEqual([
      ['x402_svm_deposit', 'collector', '-125000'],
      ['x402_svm_deposit', 'deposit_addresses', '125000'],
      ['x402_svm_swept', 'collector', '125000'],
      ['x402_svm_swept', 'deposit_addresses', '-125000'],
    ]);
    const sweeps = await db
      .selectFrom('solana_transactions')
      .select(['status'])
      .where('purpose', '=', 'x402_sweep')
      .execute();
    expect(sweeps).toEqual([{ status: 'confirmed' }]);
    expect((await auditOfMerchant(db, testbed.merchantId)).differing).toEqual([]);
    expect((await auditOfMerchant(db, other.merchantId)).differing).toEqual([]);

    // Replayed: through A it was settled already; through B it pays another merchant's account.
    expect((await testbed.facilitator('settle', signed, accepted)).body).toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
    });
    expect((await testbed.facilitator('settle', signed, accepted, other.headers)).body).toMatchObject({
      success: false,
      errorReason: RECIPIENT_MISMATCH,
    });
    expect(await usdcOf(buyer)).toBe(buyerBefore - 125_000n);
  });

  it("refuses a transfer to the collector's token account (as payloads were made before) under the merchant's payTo", async () => {
    const payToA = (await solanaKind(testbed.headers())).extra.payTo;
    const buyer = await buyerSigner('alice');
    const rpc = solanaRpc(testbed.service.devnet.manifest.solana.rpcUrl);
    const [source, destination, { value: latest }] = await Promise.all([
      tokenAccountOf(buyer.address),
      tokenAccountOf(collector),
      rpc.getLatestBlockhash().send(),
    ]);
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
              source: address(source),
              mint: address(mint),
              destination: address(destination),
              authority: buyer,
              amount: 1000n,
              decimals: 6,
            }),
          ],
          draft,
        ),
    );
    const transaction = await partiallySignTransaction([buyer.keyPair], compileTransaction(message));
    const accepted = requirements('1000', payToA);
    const toCollector = {
      x402Version: 2,
      accepted,
      payload: { transaction: getBase64EncodedWireTransaction(transaction) },
    } as PaymentPayload;
    for (const operation of ['verify', 'settle'] as const) {
      expect((await testbed.facilitator(operation, toCollector, accepted)).body).toMatchObject({
        [operation === 'verify' ? 'invalidReason' : 'errorReason']: RECIPIENT_MISMATCH,
      });
    }
  });
  it("owes a stray transfer to a merchant's token account to its sender, not to the merchant: swept into the collector and sent back once", async () => {
    const payToA = (await solanaKind(testbed.headers())).extra.payTo;
    const db = testbed.service.server.db;
    const bob = await buyerSigner('bob');
    const merchantOwed = await ledgerBalanceOf(db, `merchant:${testbed.merchantId}`, asset);
    const bobBefore = await usdcOf(bob.address);
    const collectorBefore = await usdcOf(collector);
    const [source, destination] = await Promise.all([tokenAccountOf(bob.address), tokenAccountOf(payToA)]);
    const signature = await sendAsWallet(testbed.service.devnet.manifest.solana.rpcUrl, bob, [
      getTransferCheckedInstruction({
        source: address(source),
        mint: address(mint),
        destination: address(destination),
        authority: bob,
        amount: 7_000n,
        decimals: 6,
      }),
    ]);

    await expect
      .poll(
        async () =>
          db
            .selectFrom('collector_inflows')
            .select(['outcome', 'sender', 'to_account', 'amount', 'asset'])
            .where('tx_hash', '=', signature)
            .execute(),
        { timeout: 90_000, interval: 500 },
      )
      .toEqual([
        { outcome: 'unsolicited', sender: `${NETWORK}:${bob.address}`, to_account: destination, amount: '7000', asset },
      ]);
    // Held at the merchant's account until its sweep takes it into the collector's, then owed from there.
    await expect.poll(() => usdcOf(collector), { timeout: 30_000, interval: 200 }).toBe(collectorBefore + 7_000n);
    expect(await usdcOf(payToA)).toBe(0n);
    await expect
      .poll(auditedDifferences, { timeout: 30_000, interval: 200 })
      .toEqual({ collector: '0', depositAddresses: '0' });
    expect(await ledgerBalanceOf(db, `merchant:${testbed.merchantId}`, asset)).toBe(merchantOwed);
    expect((await auditUnsolicitedInflows(db)).filter((line) => line.difference !== '0')).toEqual([]);

    const [inflow] = await db.selectFrom('collector_inflows').select('id').where('tx_hash', '=', signature).execute();
    const { chains, services } = testbed.service;
    const returns = new InflowReturnWorker({ db, chains, services, clock: systemClock });
    await Promise.all([askInflowReturn(db, inflow!.id), askInflowReturn(db, inflow!.id)]);
    await expect
      .poll(
        async () => {
          await returns.runOnce();
          return (
            await db
              .selectFrom('collector_inflows')
              .select('return_status')
              .where('id', '=', inflow!.id)
              .executeTakeFirstOrThrow()
          ).return_status;
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe('returned');
    expect(await usdcOf(bob.address)).toBe(bobBefore);
    expect(await usdcOf(collector)).toBe(collectorBefore);
    await expect
      .poll(auditedDifferences, { timeout: 30_000, interval: 200 })
      .toEqual({ collector: '0', depositAddresses: '0' });
    expect(await auditNegativeBalances(db)).toEqual([]);
  }, 180_000);
});
