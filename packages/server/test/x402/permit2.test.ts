import { readFileSync } from 'node:fs';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { decodePaymentResponseHeader, x402HTTPClient } from '@x402/fetch';
import { x402ExactPermit2ProxyABI, x402ExactPermit2ProxyAddress } from '@x402/evm';
import {
  type Abi,
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseAbi,
  parseErc6492Signature,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { X402_DEPOSIT_LOG_INDEX } from '../../src/x402/x402Deposits.ts';
import { buyerClient, type PaidApi, paymentRequiredOf, payingFetch, startPaidApi } from './paidApi.ts';
import { listedPayment, startX402Testbed, type X402Testbed } from './support.ts';

/** 0.25 USDT per request. */
const PRICE = '250000';

let testbed: X402Testbed;
let api: PaidApi;
let secondApi: PaidApi;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The x402 payments of a payer, with their payments' status. */
function x402PaymentsOf(payer: string) {
  return testbed.service.server.db
    .selectFrom('x402_payments as x402')
    .innerJoin('payments', 'payments.id', 'x402.payment_id')
    .select(['payments.id', 'payments.status', 'x402.nonce'])
    .where('x402.payer', '=', payer.toLowerCase())
    .orderBy('payments.created_at')
    .execute();
}

/** The calldata x402's own facilitator sends for a Permit2 payload (its `buildExactPermit2SettleArgs`). */
function x402SettleCalldata(payload: Record<string, unknown>): Hex {
  const { signature, permit2Authorization: permit } = payload as {
    signature: Hex;
    permit2Authorization: {
      from: Address;
      permitted: { token: Address; amount: string };
      nonce: string;
      deadline: string;
      witness: { to: Address; validAfter: string };
    };
  };
  return encodeFunctionData({
    abi: x402ExactPermit2ProxyABI,
    functionName: 'settle',
    args: [
      {
        permitted: { token: getAddress(permit.permitted.token), amount: BigInt(permit.permitted.amount) },
        nonce: BigInt(permit.nonce),
        deadline: BigInt(permit.deadline),
      },
      getAddress(permit.from),
      { to: getAddress(permit.witness.to), validAfter: BigInt(permit.witness.validAfter) },
      parseErc6492Signature(signature).signature,
    ],
  });
}

beforeAll(async () => {
  testbed = await startX402Testbed();
  const price = { amount: PRICE, asset: testbed.usdt.address, extra: { assetTransferMethod: 'permit2' } };
  api = await startPaidApi(testbed, price);
  // The same merchant's API on a second server, as behind a load balancer.
  secondApi = await startPaidApi(testbed, price);
});

afterAll(async () => {
  await api?.close();
  await secondApi?.close();
  await testbed?.close();
});

describe("the devnet's x402 Permit2 proxy", () => {
  it("has x402's proxy ABI, and its code at x402's proxy address", async () => {
    const artifact = JSON.parse(
      readFileSync(new URL('../../../devnet/artifacts/x402ExactPermit2Proxy.json', import.meta.url), 'utf8'),
    ) as { abi: Abi; deployedBytecode: Hex };
    const sorted = (abi: readonly unknown[]) =>
      abi.map((entry) => JSON.stringify(entry, Object.keys(entry as object).sort())).sort();
    expect(sorted(artifact.abi)).toEqual(sorted(x402ExactPermit2ProxyABI));
    const network = testbed.service.chains.network(testbed.network);
    if (!network) throw new Error(`${testbed.network} is not followed`);
    const client = testbed.service.services.evm.clients.for(network);
    expect(await client.getCode({ address: x402ExactPermit2ProxyAddress })).toBe(artifact.deployedBytecode);
    const typeString = await client.readContract({
      address: x402ExactPermit2ProxyAddress,
      abi: parseAbi(['function WITNESS_TYPE_STRING() view returns (string)']),
      functionName: 'WITNESS_TYPE_STRING',
    });
    expect(typeString).toBe(
      'Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)',
    );
  });
});

describe('an Express API charging USDT per request by Permit2 with x402, through paygate', () => {
  it('answers 402 asking for Permit2, serves the paid retry, and the payment is the merchant’s: source x402, the exact amount, its address paid and swept to the collector', async () => {
    const unpaid = await fetch(`${api.url}/weather`);
    expect(unpaid.status).toBe(402);
    expect(paymentRequiredOf(unpaid).accepts).toEqual([
      expect.objectContaining({
        scheme: 'exact',
        amount: PRICE,
        payTo: testbed.payTo,
        asset: testbed.usdt.address,
        extra: { assetTransferMethod: 'permit2' },
      }),
    ]);

    // Alice approved Permit2 for USDT when the devnet started.
    const buyer = testbed.buyerAddress('alice');
    const [buyerBefore, collectorBefore] = await Promise.all([
      testbed.tokenBalance(testbed.usdt.address, buyer),
      testbed.tokenBalance(testbed.usdt.address, testbed.collector),
    ]);
    const { fetch: pay, sent } = payingFetch(testbed, 'alice', testbed.usdt.address);
    const paid = await pay(`${api.url}/weather`);
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ weather: 'sunny', temperature: 21 });
    const receipt = decodePaymentResponseHeader(paid.headers.get('payment-response') ?? '');
    expect(receipt).toMatchObject({ success: true, network: testbed.network, payer: buyer });
    expect(await testbed.tokenBalance(testbed.usdt.address, buyer)).toBe(buyerBefore - BigInt(PRICE));
    await expect
      .poll(() => testbed.tokenBalance(testbed.usdt.address, testbed.collector), { timeout: 30_000, interval: 200 })
      .toBe(collectorBefore + BigInt(PRICE));

    const paymentId = (receipt.extra as { paymentId: string }).paymentId;
    const { item } = await listedPayment(testbed, paymentId);
    expect(item).toMatchObject({
      source: 'x402',
      status: 'succeeded',
      fiatAmount: { unit: 'iso4217/USD', value: '25' },
      tokenAmount: { unit: `caip19/${testbed.usdt.caip19}`, value: PRICE },
      buyer: { accountCaip10: `${testbed.network}:${buyer}` },
      transaction: { hash: receipt.transaction },
    });

    // Recorded as an EIP-3009 x402 payment is: held at the merchant's address for the buyer, then the payment's in
    // the same transaction, and the payment's events.
    const db = testbed.service.server.db;
    const ledger = await db
      .selectFrom('ledger_entries')
      .select(['entry', 'account', 'asset', 'amount'])
      .where((eb) =>
        eb.or([
          eb('entry', '=', `payment:${paymentId}`),
          eb('entry', '=', `deposit:${testbed.network}:${receipt.transaction}:${X402_DEPOSIT_LOG_INDEX}`),
        ]),
      )
      .where('account', 'in', ['deposit_addresses', `buyers:${testbed.merchantId}`])
      .orderBy('entry')
      .orderBy('account')
      .execute();
    const deposit = `deposit:${testbed.network}:${receipt.transaction}:${X402_DEPOSIT_LOG_INDEX}`;
    expect(ledger).toEqual([
      { entry: deposit, account: `buyers:${testbed.merchantId}`, asset: testbed.usdt.caip19, amount: `-${PRICE}` },
      { entry: deposit, account: 'deposit_addresses', asset: testbed.usdt.caip19, amount: PRICE },
      {
        entry: `payment:${paymentId}`,
        account: `buyers:${testbed.merchantId}`,
        asset: testbed.usdt.caip19,
        amount: PRICE,
      },
    ]);
    const events = await db
      .selectFrom('webhook_events')
      .select('type')
      .where('body', 'like', `%${paymentId}%`)
      .orderBy('created_at')
      .execute();
    expect(events.map((event) => event.type)).toEqual(['payment.created', 'payment.processing', 'payment.succeeded']);

    // The collector sent the proxy's settle exactly as x402's own facilitator encodes it.
    const header = sent.map((headers) => headers.get('payment-signature')).find(Boolean) as string;
    const { payload } = decodePaymentSignatureHeader(header);
    expect(payload.permit2Authorization).toMatchObject({ spender: x402ExactPermit2ProxyAddress });
    const relayed = await testbed.service.server.db
      .selectFrom('evm_transactions')
      .select(['to_address', 'data'])
      .where('payment_id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect(getAddress(relayed.to_address)).toBe(x402ExactPermit2ProxyAddress);
    expect(relayed.data).toBe(x402SettleCalldata(payload));
  });

  it('pays once for a replayed payment header: the replay is refused with 402 and permit2_invalid_nonce', async () => {
    const buyer = testbed.buyerAddress('alice');
    const before = await testbed.tokenBalance(testbed.usdt.address, buyer);
    const { fetch: pay, sent } = payingFetch(testbed, 'alice', testbed.usdt.address);
    expect((await pay(`${api.url}/weather`)).status).toBe(200);
    const header = sent.map((headers) => headers.get('payment-signature')).find(Boolean) as string;
    for (const server of [api, secondApi]) {
      const replayed = await fetch(`${server.url}/weather`, { headers: { 'payment-signature': header } });
      expect(replayed.status).toBe(402);
      expect(paymentRequiredOf(replayed).error).toContain('permit2_invalid_nonce');
    }
    expect(await testbed.tokenBalance(testbed.usdt.address, buyer)).toBe(before - BigInt(PRICE));
  });

  it('pays once when one payment header reaches two servers at once: one serves the resource, the others refuse', async () => {
    const buyer = testbed.buyerAddress('alice');
    const before = await testbed.tokenBalance(testbed.usdt.address, buyer);
    const paymentsBefore = await x402PaymentsOf(buyer);
    const client = new x402HTTPClient(buyerClient(testbed, 'alice', testbed.usdt.address));
    const payload = await client.createPaymentPayload(paymentRequiredOf(await fetch(`${api.url}/weather`)));
    const headers = client.encodePaymentSignatureHeader(payload);

    const answers = await Promise.all(
      [api, secondApi, api, secondApi].map((server) => fetch(`${server.url}/weather`, { headers })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 402, 402, 402]);
    expect(await testbed.tokenBalance(testbed.usdt.address, buyer)).toBe(before - BigInt(PRICE));
    expect(await x402PaymentsOf(buyer)).toHaveLength(paymentsBefore.length + 1);
  });
});

describe('POST /v1/x402/settle with Permit2 payloads', () => {
  it('pays once when settles of one payload arrive at once, and once per owner and Permit2 nonce whatever the token', async () => {
    const requirements = testbed.permit2Requirements('70000');
    const payload = await testbed.payload('alice', requirements);
    const buyer = testbed.buyerAddress('alice');
    const before = await testbed.tokenBalance(testbed.usdt.address, buyer);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => testbed.facilitator('settle', payload, requirements)),
    );
    const succeeded = answers.filter((answer) => answer.body.success);
    expect(succeeded, JSON.stringify(answers.map((answer) => answer.body))).toHaveLength(1);
    for (const answer of answers.filter((candidate) => !candidate.body.success))
      expect(answer.body).toMatchObject({ errorReason: 'permit2_invalid_nonce', payer: buyer });
    expect(await testbed.tokenBalance(testbed.usdt.address, buyer)).toBe(before - 70_000n);
    const nonce = (payload.payload.permit2Authorization as { nonce: string }).nonce;
    expect((await x402PaymentsOf(buyer)).filter((payment) => payment.nonce === nonce)).toEqual([
      { id: succeeded[0]?.body.extra.paymentId, status: 'succeeded', nonce },
    ]);

    // The same owner's nonce again, signed for USDC: Permit2 would refuse it, and so does paygate, before sending.
    const usdcRequirements = testbed.requirements('70000', { extra: { assetTransferMethod: 'permit2' } });
    const sameNonce = await testbed.customPermit2Payload('alice', usdcRequirements, { nonce });
    const again = await testbed.facilitator('settle', sameNonce, usdcRequirements);
    expect(again.body).toMatchObject({
      success: false,
      errorReason: 'permit2_invalid_nonce',
      errorMessage: 'the payload was settled already',
      transaction: '',
    });
  });

  it('refuses, with x402’s reasons and nothing recorded or sent: another spender, recipient, amount or token, an expired deadline, a future validAfter, a bad signature, no Permit2 allowance, no balance', async () => {
    const requirements = testbed.permit2Requirements('1000');
    const alice = testbed.buyerAddress('alice');
    const bob = testbed.buyerAddress('bob');
    const [aliceBefore, bobBefore, alicePayments, bobPayments] = await Promise.all([
      testbed.tokenBalance(testbed.usdt.address, alice),
      testbed.tokenBalance(testbed.usdt.address, bob),
      x402PaymentsOf(alice),
      x402PaymentsOf(bob),
    ]);
    const cases: [string, Promise<Awaited<ReturnType<X402Testbed['customPermit2Payload']>>>, string][] = [
      [
        'another spender',
        testbed.customPermit2Payload('alice', requirements, { spender: testbed.collector }),
        'invalid_permit2_spender',
      ],
      [
        'another recipient',
        testbed.customPermit2Payload('alice', requirements, { to: bob }),
        'invalid_permit2_recipient_mismatch',
      ],
      [
        'another amount',
        testbed.customPermit2Payload('alice', requirements, { amount: '1001' }),
        'permit2_amount_mismatch',
      ],
      [
        'an expired deadline',
        testbed.customPermit2Payload('alice', requirements, { deadline: String(nowSeconds() - 60) }),
        'permit2_deadline_expired',
      ],
      [
        'a future validAfter',
        testbed.customPermit2Payload('alice', requirements, { validAfter: String(nowSeconds() + 3600) }),
        'permit2_not_yet_valid',
      ],
      [
        "bob's permit signed by alice",
        testbed.customPermit2Payload('alice', requirements, { from: bob }),
        'invalid_permit2_signature',
      ],
      [
        'another token',
        testbed.customPermit2Payload('alice', requirements, { token: testbed.usdc.address }),
        'permit2_token_mismatch',
      ],
      ['no Permit2 allowance', testbed.customPermit2Payload('bob', requirements, {}), 'permit2_allowance_required'],
      ['no balance', testbed.customPermit2Payload('dave', requirements, {}), 'permit2_insufficient_balance'],
    ];
    for (const [what, payload, reason] of cases) {
      for (const operation of ['verify', 'settle'] as const) {
        const answer = await testbed.facilitator(operation, await payload, requirements);
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body, `${operation} of ${what}`).toMatchObject(
          operation === 'verify' ? { isValid: false, invalidReason: reason } : { success: false, errorReason: reason },
        );
      }
    }
    expect(await testbed.tokenBalance(testbed.usdt.address, alice)).toBe(aliceBefore);
    expect(await testbed.tokenBalance(testbed.usdt.address, bob)).toBe(bobBefore);
    expect(await x402PaymentsOf(alice)).toEqual(alicePayments);
    expect(await x402PaymentsOf(bob)).toEqual(bobPayments);
  });
});
