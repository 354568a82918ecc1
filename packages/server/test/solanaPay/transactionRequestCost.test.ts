import type { Devnet } from '@paygate/devnet';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signature as toSignature,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import {
  AuthorityType,
  findAssociatedTokenPda,
  getSetAuthorityInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorAddresses } from '../../src/chains/collectorKeys.ts';
import { parseTransferRequestUri } from '../../src/solanaPay/transferRequestUri.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { type CallResult, call, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';
import { payAsWallet, transactionRequestPathOnPage } from './support.ts';

/** What every payment of this file asks: 10 USDC. */
const AMOUNT = 10_000_000n;
/** The service's bounds on unexpired co-signed transactions, as the README gives them. */
const PER_PAYMENT = 3;
const PER_ACCOUNT = 3;

describe('Solana Pay transaction requests cost the collector nothing unless they pay', () => {
  let testService: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let collector: string;
  let usdcMint: string;
  let rpc: ReturnType<typeof createSolanaRpc>;
  let alice: KeyPairSigner;

  const collectorLamports = async () =>
    (await rpc.getBalance(address(collector), { commitment: 'confirmed' }).send()).value;
  const paymentStatus = async (paymentId: string) =>
    (
      await call(server, `/v1/payments/${paymentId}`, {
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      })
    ).body.status;

  /** A new payment of 10 USD and the path of its USDC transaction request, from its checkout page. */
  async function newRequest(): Promise<{ paymentId: string; path: string }> {
    const { paymentId, gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
    return { paymentId, path: await transactionRequestPathOnPage(gatewayUrl, usdcMint) };
  }

  /** A fresh account with no SOL; with `usdc`, its token account is made by Alice and holds that many minor units. */
  async function freshAccount(usdc?: bigint): Promise<KeyPairSigner> {
    const account = await generateKeyPairSigner();
    if (usdc !== undefined) {
      const request = parseTransferRequestUri(`solana:${account.address}?amount=1&spl-token=${usdcMint}`);
      if (!request) throw new Error('unreadable transfer request');
      await payAsWallet(devnet.manifest.solana.rpcUrl, aliceSecretKey(), [{ request, amount: usdc }]);
    }
    return account;
  }

  function aliceSecretKey(): string {
    const found = devnet.manifest.buyers.find((candidate) => candidate.name === 'alice');
    if (!found) throw new Error('no devnet buyer alice');
    return found.solanaSecretKey;
  }

  /** Sends instructions in a transaction Alice pays for, signed by every signer they name. */
  async function sendPaidByAlice(instructions: Instruction[]): Promise<void> {
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayerSigner(alice, draft),
      (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
      (draft) => appendTransactionMessageInstructions(instructions, draft),
    );
    const signed = await signTransactionMessageWithSigners(message);
    await rpc
      .sendTransaction(getBase64EncodedWireTransaction(signed), {
        encoding: 'base64',
        preflightCommitment: 'confirmed',
      })
      .send();
  }

  /**
   * The attacker's wallet: signs whatever transaction the service answers with and sends it without preflight, so a
   * failing one still lands and its fee payer pays. Returns the signature, or nothing when there was no transaction.
   */
  async function signAndSendBlindly(response: CallResult, account: KeyPairSigner): Promise<string | undefined> {
    if (response.status !== 200) return undefined;
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(response.body.transaction));
    const signed = await partiallySignTransaction([account.keyPair], transaction);
    await rpc
      .sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', skipPreflight: true })
      .send();
    return getSignatureFromTransaction(signed);
  }

  const ask = (path: string, account: KeyPairSigner) =>
    call(server, path, { method: 'POST', body: { account: account.address } });

  beforeAll(async () => {
    testService = await startDevnetService({
      prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' },
      // Only the service's own bounds are under test here, not the per-IP rate limit.
      env: { RATE_LIMIT_MAX: '100000' },
    });
    ({ devnet, server } = testService);
    collector = (await collectorAddresses(testService.keys)).solana;
    usdcMint = devnet.manifest.solana.tokens.find((token) => token.symbol === 'USDC')?.address as string;
    rpc = createSolanaRpc(devnet.manifest.solana.rpcUrl);
    alice = await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(aliceSecretKey())));
    partner = await newPartner(server.db);
    merchantId = (
      await createMerchant(server, partner.apiKey, {
        merchantName: 'Corner Shop',
        merchantEmail: 'owner@corner-shop.com',
      })
    ).id;
  }, 180_000);

  afterAll(async () => {
    await testService?.close();
  });

  describe('security', () => {
    it('refuses 20 fresh empty accounts sending blindly: the collector spends 0 lamports', async () => {
      const { path } = await newRequest();
      const before = await collectorLamports();
      const responses: CallResult[] = [];
      for (let attempt = 0; attempt < 20; attempt++) {
        const account = await freshAccount();
        const response = await ask(path, account);
        await signAndSendBlindly(response, account);
        responses.push(response);
      }
      expect(before - (await collectorLamports())).toBe(0n);
      for (const response of responses) {
        expect(response.status).toBe(409);
        expect(response.body.code).toBe('insufficient_token_balance');
        expect(response.body.message).toMatch(/holds 0 USDC.*asks 10 USDC/);
        expect(response.headers.get('access-control-allow-origin')).toBe('*');
      }
    });

    it('refuses accounts that hold less than the amount: the collector spends 0 lamports', async () => {
      const { path } = await newRequest();
      const held = [0n, 1n, AMOUNT - 1n];
      const accounts: KeyPairSigner[] = [];
      for (const amount of held) accounts.push(await freshAccount(amount));
      const before = await collectorLamports();
      const responses: CallResult[] = [];
      for (const account of accounts) {
        const response = await ask(path, account);
        await signAndSendBlindly(response, account);
        responses.push(response);
      }
      expect(before - (await collectorLamports())).toBe(0n);
      expect(responses.map((response) => [response.status, response.body.code, response.body.details])).toEqual(
        held.map((amount, index) => [
          409,
          'insufficient_token_balance',
          { account: accounts[index]?.address, balance: amount.toString(), amount: AMOUNT.toString() },
        ]),
      );
    });

    it('refuses a transaction its simulation shows would fail, naming the reason: the collector spends 0 lamports', async () => {
      const { path, paymentId } = await newRequest();
      // The account's token account holds the amount, but another key now owns it: the transfer cannot be signed for.
      const account = await freshAccount(AMOUNT);
      const [tokenAccount] = await findAssociatedTokenPda({
        owner: account.address,
        mint: address(usdcMint),
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      });
      await sendPaidByAlice([
        getSetAuthorityInstruction({
          owned: tokenAccount,
          owner: account,
          authorityType: AuthorityType.AccountOwner,
          newAuthority: (await generateKeyPairSigner()).address,
        }),
      ]);
      const before = await collectorLamports();
      const response = await ask(path, account);
      await signAndSendBlindly(response, account);
      expect(before - (await collectorLamports())).toBe(0n);
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('transaction_would_fail');
      expect(response.body.message).toMatch(/owner does not match/i);
      expect(response.body.details).toEqual({ reason: expect.stringMatching(/owner does not match/i) });
      expect(await paymentStatus(paymentId)).toBe('requires_action');
    });

    it('refuses the collector itself as the account: signed by it already, the transaction would need no other signature', async () => {
      const { path } = await newRequest();
      const response = await call(server, path, { method: 'POST', body: { account: collector } });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('params_validation');
      expect(response.body.issues).toEqual([{ field: 'account', message: "is the service's collector" }]);
    });

    it(`co-signs at most ${PER_PAYMENT} unexpired transactions per payment, however many accounts ask at once`, async () => {
      const { path } = await newRequest();
      const accounts: KeyPairSigner[] = [];
      for (let index = 0; index < PER_PAYMENT + 3; index++) accounts.push(await freshAccount(AMOUNT));
      const responses = await Promise.all(accounts.map((account) => ask(path, account)));
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([...Array(PER_PAYMENT).fill(200), ...Array(3).fill(429)]);
      for (const refused of responses.filter((response) => response.status === 429)) {
        expect(refused.body.code).toBe('transaction_request_limit');
        expect(refused.body.message).toMatch(new RegExp(`${PER_PAYMENT} .*this payment`));
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    });

    it(`co-signs at most ${PER_ACCOUNT} unexpired transactions per account across payments, and again once their blockhashes expire, when their unspent fees go back to the operator`, async () => {
      const account = await freshAccount(AMOUNT);
      const signatures: string[] = [];
      for (let index = 0; index < PER_ACCOUNT; index++) {
        const answered = await ask((await newRequest()).path, account);
        expect(answered.status).toBe(200);
        signatures.push(
          getSignatureFromTransaction(
            getTransactionDecoder().decode(getBase64Encoder().encode(answered.body.transaction)),
          ),
        );
      }
      // Each reserved its most possible fee out of the operator's SOL while it could land.
      const operatorLines = (signature: string) =>
        server.db
          .selectFrom('ledger_entries')
          .select(['entry', 'amount'])
          .where('entry', 'like', `network_fee:${signature}%`)
          .where('account', '=', 'operator')
          .execute();
      for (const signature of signatures)
        expect((await operatorLines(signature)).map((line) => line.entry)).toEqual([
          `network_fee:${signature}:reserved`,
        ]);
      const { path } = await newRequest();
      const refused = await ask(path, account);
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('transaction_request_limit');
      expect(refused.body.message).toMatch(new RegExp(`${PER_ACCOUNT} .*this account`));
      const retryAfter = Number(refused.headers.get('retry-after'));
      // A blockhash lasts 150 slots (60 s at the devnet's 400 ms).
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(61);
      await expect.poll(async () => (await ask(path, account)).status, { timeout: 120_000, interval: 2_000 }).toBe(200);
      // None was sent: each cost nothing, and what was reserved for it is the operator's again.
      for (const signature of signatures)
        await expect
          .poll(async () => (await operatorLines(signature)).reduce((sum, line) => sum + BigInt(line.amount), 0n), {
            timeout: 30_000,
            interval: 500,
          })
          .toBe(0n);
      expect(
        await server.db
          .selectFrom('ledger_entries')
          .select('id')
          .where(
            'entry',
            'in',
            signatures.map((signature) => `network_fee:${signature}`),
          )
          .execute(),
      ).toEqual([]);
    }, 240_000);
  });

  describe('happy path', () => {
    it('an account holding the amount and no SOL pays; the collector spends only the fee of that transaction', async () => {
      const { paymentId, path } = await newRequest();
      const account = await freshAccount(AMOUNT);
      const before = await collectorLamports();
      const response = await ask(path, account);
      expect(response.status).toBe(200);
      expect(response.body.message).toBe('Pay 10 USDC to Corner Shop');
      const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(response.body.transaction));
      const signed = await partiallySignTransaction([account.keyPair], transaction);
      await rpc
        .sendTransaction(getBase64EncodedWireTransaction(signed), {
          encoding: 'base64',
          preflightCommitment: 'confirmed',
        })
        .send();
      await expect.poll(() => paymentStatus(paymentId), { timeout: 30_000 }).toBe('succeeded');
      const landed = await rpc
        .getTransaction(toSignature(getSignatureFromTransaction(signed)), {
          commitment: 'confirmed',
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
        })
        .send();
      expect(landed?.meta?.err).toBeNull();
      expect(before - (await collectorLamports())).toBe(landed?.meta?.fee);
    });
  });
});
