import type { Devnet } from '@paygate/devnet';
import {
  createKeyPairFromBytes,
  createSolanaRpc,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
} from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorAddresses } from '../../src/chains/collectorKeys.ts';
import { withSolanaPayTables } from '../../src/chains/solana/solanaPayTables.ts';
import { parseTransferRequestUri } from '../../src/solanaPay/transferRequestUri.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';
import { payAsWallet } from './support.ts';

/** Low enough for the last test to reach it; every other call of this file stays well below it. */
const RATE_LIMIT_MAX = 60;

describe('Solana Pay transaction requests: GET label and icon, POST a transaction the account signs and sends', () => {
  let testService: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  let collector: string;
  let usdcMint: string;

  const buyer = (name: string) => {
    const found = devnet.manifest.buyers.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no devnet buyer ${name}`);
    return found;
  };
  const paymentStatus = async (paymentId: string) =>
    (
      await call(server, `/v1/payments/${paymentId}`, {
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      })
    ).body.status;

  /** A payment and the reference of its USDC Solana Pay request, made by showing its checkout page. */
  async function paymentWithRequest(): Promise<{ paymentId: string; reference: string; path: string }> {
    const { paymentId, gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
    const page = await (await fetch(gatewayUrl)).text();
    const request = [...page.matchAll(/value="(solana:[^"]+)"/g)]
      .map((match) => parseTransferRequestUri((match[1] as string).replaceAll('&amp;', '&')))
      .find((parsed) => parsed?.splToken === usdcMint);
    const reference = request?.references[0];
    if (!reference) throw new Error('no Solana Pay request on the page');
    // The page's transaction request link for the same request: `solana:` and the percent-encoded URL.
    const links = [...page.matchAll(/href="(solana:[^"]+)" data-solana-pay-transaction-request/g)].map((match) =>
      decodeURIComponent((match[1] as string).slice('solana:'.length)),
    );
    const path = `/v1/solana-pay/requests/${reference}`;
    expect(links).toContain(`${server.url}${path}`);
    return { paymentId, reference, path };
  }

  /** The wallet's side: signs the returned transaction with the account's key and sends it. */
  async function signAndSend(transactionBase64: string, secretKey: string): Promise<string> {
    const keyPair = await createKeyPairFromBytes(new Uint8Array(getBase58Encoder().encode(secretKey)));
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(transactionBase64));
    const signed = await partiallySignTransaction([keyPair], transaction);
    await createSolanaRpc(devnet.manifest.solana.rpcUrl)
      .sendTransaction(getBase64EncodedWireTransaction(signed), {
        encoding: 'base64',
        preflightCommitment: 'confirmed',
      })
      .send();
    return getSignatureFromTransaction(signed);
  }

  beforeAll(async () => {
    testService = await startDevnetService({
      prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' },
      env: { RATE_LIMIT_MAX: String(RATE_LIMIT_MAX) },
    });
    ({ devnet, server } = testService);
    collector = (await collectorAddresses(testService.keys)).solana;
    usdcMint = devnet.manifest.solana.tokens.find((token) => token.symbol === 'USDC')?.address as string;
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

  describe('happy path', () => {
    it('GET names the merchant and an icon that serves, to any origin', async () => {
      const { path } = await paymentWithRequest();
      const response = await fetch(`${server.url}${path}`, { headers: { origin: 'https://wallet.example' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const body = (await response.json()) as { label: string; icon: string };
      expect(body.label).toBe('Corner Shop');
      const icon = await fetch(body.icon);
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toContain('image/svg+xml');
    });

    it('answers the preflight of a cross-origin POST', async () => {
      const { path } = await paymentWithRequest();
      const response = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://wallet.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-methods')).toContain('POST');
      expect(response.headers.get('access-control-allow-headers')).toContain('content-type');
    });

    it('POST returns a transaction the account signs and sends; it pays the payment, the service paying the fee', async () => {
      const { paymentId, path } = await paymentWithRequest();
      // Erin holds USDC but no SOL.
      const account = buyer('erin').solanaAddress;
      const response = await call(server, path, { method: 'POST', body: { account } });
      expect(response.status).toBe(200);
      expect(response.body.message).toBe('Pay 10 USDC to Corner Shop');
      const signature = await signAndSend(response.body.transaction, buyer('erin').solanaSecretKey);
      await expect.poll(() => paymentStatus(paymentId), { timeout: 30_000 }).toBe('succeeded');
      const row = await server.db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirst();
      expect(row).toMatchObject({
        tx_hash: signature,
        buyer_account: `${devnet.manifest.solana.caip2}:${account}`,
        token_value: '10000000',
      });
      const recorded = await withSolanaPayTables(server.db)
        .selectFrom('solana_pay_transfers')
        .selectAll()
        .where('payment_id', '=', paymentId)
        .execute();
      expect(recorded).toMatchObject([{ signature, outcome: 'paid', buyer: account, amount: '10000000' }]);
      // The fee the collector paid for the buyer's transaction is in the ledger, spent from its SOL and paid by the
      // operator: the most it could cost was reserved when the service signed it, the rest given back once it landed.
      const entry = `network_fee:${signature}`;
      const lines = await server.db
        .selectFrom('ledger_entries')
        .select(['entry', 'account', 'asset', 'amount'])
        .where('entry', 'in', [entry, `${entry}:reserved`, `${entry}:settled`])
        .orderBy('entry')
        .orderBy('account')
        .execute();
      const sol = devnet.manifest.solana.nativeToken.caip19;
      const fee = -BigInt(lines[0]?.amount ?? '0');
      const reserved = BigInt(
        lines.find((line) => line.entry === `${entry}:reserved` && line.account === 'operator')?.amount ?? 0,
      );
      expect(fee).toBeGreaterThan(0n);
      expect(reserved).toBeGreaterThanOrEqual(fee);
      expect(lines).toEqual([
        { entry, account: 'collector', asset: sol, amount: (-fee).toString() },
        { entry, account: 'network_fees', asset: sol, amount: fee.toString() },
        { entry: `${entry}:reserved`, account: 'network_fees', asset: sol, amount: (-reserved).toString() },
        { entry: `${entry}:reserved`, account: 'operator', asset: sol, amount: reserved.toString() },
        { entry: `${entry}:settled`, account: 'network_fees', asset: sol, amount: (reserved - fee).toString() },
        { entry: `${entry}:settled`, account: 'operator', asset: sol, amount: (fee - reserved).toString() },
      ]);
    });
  });

  describe('errors', () => {
    it('answers 404 for a reference the service did not make and 400 for one that is no key', async () => {
      const unknown = await call(server, `/v1/solana-pay/requests/${buyer('dave').solanaAddress}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('not_found');
      const malformed = await call(server, '/v1/solana-pay/requests/not-a-key!');
      expect(malformed.status).toBe(400);
    });

    it('refuses an account that is not a Solana address', async () => {
      const { path } = await paymentWithRequest();
      for (const account of ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '', 'O0O0']) {
        const response = await call(server, path, { method: 'POST', body: { account } });
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('params_validation');
      }
      expect((await call(server, path, { method: 'POST', body: {} })).status).toBe(400);
    });

    it('builds nothing for a payment that is no longer payable', async () => {
      const { paymentId, path, reference } = await paymentWithRequest();
      const request = parseTransferRequestUri(
        `solana:${collector}?amount=10&spl-token=${usdcMint}&reference=${reference}`,
      );
      await payAsWallet(devnet.manifest.solana.rpcUrl, buyer('alice').solanaSecretKey, [{ request: request! }]);
      await expect.poll(() => paymentStatus(paymentId), { timeout: 30_000 }).toBe('succeeded');
      const response = await call(server, path, { method: 'POST', body: { account: buyer('bob').solanaAddress } });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('invalid_state');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    });
  });

  describe('security', () => {
    it("signs only as the fee payer: the account's slot is empty, the reference is a read-only key that does not sign", async () => {
      const { path, reference } = await paymentWithRequest();
      const account = buyer('bob').solanaAddress;
      const response = await call(server, path, { method: 'POST', body: { account } });
      const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(response.body.transaction));
      expect(Object.keys(transaction.signatures)).toEqual([collector, account]);
      expect(transaction.signatures[collector as keyof typeof transaction.signatures]).not.toBeNull();
      expect(transaction.signatures[account as keyof typeof transaction.signatures]).toBeNull();
      const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
      const index = message.staticAccounts.indexOf(reference as (typeof message.staticAccounts)[number]);
      expect(index).toBeGreaterThanOrEqual(message.header.numSignerAccounts);
      // Read-only unsigned keys come last.
      expect(index).toBeGreaterThanOrEqual(message.staticAccounts.length - message.header.numReadonlyNonSignerAccounts);
    });

    it('a transaction built for one account cannot be sent by another', async () => {
      const { paymentId, path } = await paymentWithRequest();
      const response = await call(server, path, { method: 'POST', body: { account: buyer('bob').solanaAddress } });
      await expect(signAndSend(response.body.transaction, buyer('alice').solanaSecretKey)).rejects.toThrow();
      expect(await paymentStatus(paymentId)).toBe('requires_action');
    });

    it('is rate limited per IP, and the refusal is readable cross-origin', async () => {
      const { path } = await paymentWithRequest();
      let refused: Response | undefined;
      for (let attempt = 0; attempt < RATE_LIMIT_MAX + 5 && !refused; attempt++) {
        const response = await fetch(`${server.url}${path}`, { headers: { origin: 'https://wallet.example' } });
        if (response.status === 429) refused = response;
        else await response.arrayBuffer();
      }
      expect(refused?.status).toBe(429);
      expect(refused?.headers.get('retry-after')).toBeTruthy();
    });
  });
});
