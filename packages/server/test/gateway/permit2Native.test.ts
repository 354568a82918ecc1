import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeTransferReference } from '../../src/chains/evm/nativeTransfer.ts';
import type { NetworkInfo } from '../../src/chains/registry.ts';
import { type CallResult, expectErrorBody } from '../support/testServer.ts';
import {
  type GatewayTestbed,
  sendTransactionAsWallet,
  signSolanaAsWallet,
  signTypedDataAsStranger,
  signTypedDataAsWallet,
  startGatewayTestbed,
} from './support/gatewayTestbed.ts';

let bed: GatewayTestbed;

beforeAll(async () => {
  bed = await startGatewayTestbed();
}, 180_000);

afterAll(async () => {
  await bed?.close();
});

const symbolOf = (option: any): string => option.amount.display.assetSymbol;
const results = (...values: string[]) => values.map((value) => ({ type: 'walletRpc', data: [value] }));
const evmChain = () => ({ chainId: bed.devnet.manifest.evm[0]!.chainId, rpcUrl: bed.devnet.manifest.evm[0]!.rpcUrl });

async function optionsOf(paymentId: string, accounts: string[]): Promise<any[]> {
  const response = await bed.gateway(paymentId, '/options', { accounts });
  expect(response.status, response.text).toBe(200);
  return response.body.options;
}

async function optionIn(paymentId: string, account: string, symbol: string): Promise<any> {
  const option = (await optionsOf(paymentId, [account])).find((candidate) => symbolOf(candidate) === symbol);
  expect(option, `no ${symbol} option for ${account}`).toBeDefined();
  return option;
}

/** Runs the option's actions as a wallet holding the buyer's EVM key would, in order. */
async function payAsWallet(buyerName: string, option: any): Promise<string[]> {
  const { evmPrivateKey } = bed.buyer(buyerName);
  const values: string[] = [];
  for (const action of option.actions) {
    const { method, params } = action.data;
    if (method === 'eth_sendTransaction') values.push(await sendTransactionAsWallet(evmPrivateKey, evmChain(), params));
    else if (method === 'eth_signTypedData_v4') values.push(await signTypedDataAsWallet(evmPrivateKey, params));
    else throw new Error(`a wallet must refuse the unknown method ${method}`);
  }
  return values;
}

/** Confirms with a long-poll: the chain's verdict arrives in the same response. */
async function confirmAndWait(paymentId: string, optionId: string, values: string[]) {
  const confirmed = await bed.gateway(paymentId, '/confirm?maxPollMs=30000', { optionId, results: results(...values) });
  expect(confirmed.status, confirmed.text).toBe(200);
  return confirmed.body;
}

async function expectPayable(paymentId: string): Promise<void> {
  expect((await bed.gateway(paymentId, '/status')).body).toMatchObject({ status: 'requires_action', isFinal: false });
}

/** A confirm the service refuses: 400 `invalid_params`, and why. */
async function refusedReason(confirm: Promise<CallResult>): Promise<string> {
  const response = await confirm;
  expect(response.status, response.text).toBe(400);
  expect(expectErrorBody(response).code).toBe('invalid_params');
  return response.body.details?.reason;
}

/** Waits until the devnet has mined the transaction. */
async function mined(hash: string): Promise<void> {
  const client = bed.services.evm.clients.for(bed.chains.network(bed.evmChain()) as NetworkInfo);
  await client.waitForTransactionReceipt({ hash: hash as Hex, pollingInterval: 200 });
}

/** The buyer's own coin transfer to the collector, as a wallet sends it, with or without calldata. */
function sendCoins(buyerName: string, value: string, data?: Hex): Promise<string> {
  const buyer = bed.buyer(buyerName);
  const transaction = {
    from: buyer.evmAddress,
    to: bed.services.evm.collector,
    value: `0x${BigInt(value).toString(16)}`,
    ...(data ? { data } : {}),
  };
  return sendTransactionAsWallet(buyer.evmPrivateKey, evmChain(), JSON.stringify([transaction]));
}

describe('Permit2 options (USDT)', () => {
  it('pays with one signature when the allowance is there, succeeded from a single long-polled confirm and listed', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await optionIn(paymentId, bed.evmAccount('alice'), 'USDT');
    expect(option).toMatchObject({ amount: { value: '10000000' }, expiresAt: null });
    expect(option.actions.map((action: any) => action.data.method)).toEqual(['eth_signTypedData_v4']);

    const status = await confirmAndWait(paymentId, option.id, await payAsWallet('alice', option));
    expect(status).toMatchObject({
      status: 'succeeded',
      isFinal: true,
      info: { optionAmount: { value: '10000000', display: { assetSymbol: 'USDT' } } },
    });
    expect(await bed.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      buyer: { accountCaip10: bed.evmAccount('alice'), accountProviderName: 'Test Wallet' },
      tokenAmount: { value: '10000000', display: { assetSymbol: 'USDT' } },
      transaction: { networkId: bed.evmChain().split(':')[1], hash: status.info.txId },
    });
    const relayed = await bed.server.db
      .selectFrom('evm_transactions')
      .select('purpose')
      .where('payment_id', '=', paymentId)
      .execute();
    expect(relayed).toEqual([{ purpose: 'permit2_transfer' }]);
  });

  it('pays WETH (wrapped ether, 18 decimals, priced by the rate source) with one signature where Permit2 is approved', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await optionIn(paymentId, bed.evmAccount('alice'), 'WETH');
    // 10.00 USD at 3000 USD per WETH, rounded up to the wei, with the quote's end.
    expect(option.amount.value).toBe('3333333333333334');
    expect(option.expiresAt).toBeGreaterThan(Math.floor(bed.clock.now().getTime() / 1000));
    expect(option.actions.map((action: any) => action.data.method)).toEqual(['eth_signTypedData_v4']);

    const status = await confirmAndWait(paymentId, option.id, await payAsWallet('alice', option));
    expect(status).toMatchObject({ status: 'succeeded', info: { optionAmount: { value: '3333333333333334' } } });
    expect(await bed.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      tokenAmount: { value: '3333333333333334', display: { assetSymbol: 'WETH' } },
    });
  });

  it('starts with an approval when the allowance is short (two actions), for a buyer holding only USDT and gas', async () => {
    const { paymentId } = await bed.newPayment();
    const options = await optionsOf(paymentId, [bed.evmAccount('carol')]);
    expect(options.map(symbolOf).sort()).toEqual(['ETH', 'USDT']);
    const option = options.find((candidate) => symbolOf(candidate) === 'USDT');
    expect(option.actions.map((action: any) => action.data.method)).toEqual([
      'eth_sendTransaction',
      'eth_signTypedData_v4',
    ]);

    const values = await payAsWallet('carol', option);
    expect(values[0]).toMatch(/^0x[0-9a-f]{64}$/);
    const status = await confirmAndWait(paymentId, option.id, values);
    const final = status.isFinal ? status : (await bed.gateway(paymentId, '/status?maxPollMs=30000')).body;
    expect(final).toMatchObject({ status: 'succeeded', info: { optionAmount: { value: '10000000' } } });
    expect(await bed.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      buyer: { accountCaip10: bed.evmAccount('carol') },
      tokenAmount: { value: '10000000', display: { assetSymbol: 'USDT' } },
      transaction: { hash: final.info.txId },
    });
    // The approval is the buyer's own transaction; the service sent only the transfer.
    expect(final.info.txId).not.toBe(values[0]);
  });
});

describe('native coin options (ETH)', () => {
  it('pays with one transfer to the collector carrying the option reference, priced through the price source with a quote end', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await optionIn(paymentId, bed.evmAccount('bob'), 'ETH');
    // 10.00 USD at 3000 USD per ETH, rounded up to the wei.
    expect(option.amount.value).toBe('3333333333333334');
    expect(option.expiresAt).toBeGreaterThan(Math.floor(bed.clock.now().getTime() / 1000));
    expect(option.actions.map((action: any) => action.data.method)).toEqual(['eth_sendTransaction']);
    const [request] = JSON.parse(option.actions[0].data.params);
    expect(request).toMatchObject({
      from: bed.buyer('bob').evmAddress,
      value: '0xbd7a625405556',
      data: nativeTransferReference(option.id),
    });

    const [hash] = await payAsWallet('bob', option);
    const status = await confirmAndWait(paymentId, option.id, [hash as string]);
    expect(status).toMatchObject({
      status: 'succeeded',
      info: { optionAmount: { value: '3333333333333334' }, txId: hash },
    });
    expect(await bed.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      buyer: { accountCaip10: bed.evmAccount('bob') },
      tokenAmount: { value: '3333333333333334', display: { assetSymbol: 'ETH' } },
      transaction: { hash },
    });
  });

  it("refuses another partner's confirm with the buyer's transfer for a payment of the same amount; the payment it was made for succeeds", async () => {
    const partnerA = await bed.otherPartner('Partner A');
    // The buyer pays partner B's payment (the testbed's partner) in ETH; B has not confirmed yet.
    const paymentOfB = await bed.newPayment();
    const optionOfB = await optionIn(paymentOfB.paymentId, bed.evmAccount('bob'), 'ETH');
    const [hash] = await payAsWallet('bob', optionOfB);

    // Partner A names the buyer's account, which needs no proof of ownership, and confirms with the buyer's hash.
    const paymentOfA = await partnerA.newPayment();
    const optionsOfA = await partnerA.gateway(paymentOfA.paymentId, '/options', { accounts: [bed.evmAccount('bob')] });
    const optionOfA = optionsOfA.body.options.find((candidate: any) => symbolOf(candidate) === 'ETH');
    expect(optionOfA.amount.value).toBe(optionOfB.amount.value);
    await mined(hash as string);
    const claimed = partnerA.gateway(paymentOfA.paymentId, '/confirm', {
      optionId: optionOfA.id,
      results: results(hash as string),
    });
    expect(await refusedReason(claimed)).toBe('reference_mismatch');
    expect((await partnerA.gateway(paymentOfA.paymentId, '/status')).body).toMatchObject({
      status: 'requires_action',
      isFinal: false,
    });

    expect((await confirmAndWait(paymentOfB.paymentId, optionOfB.id, [hash as string])).status).toBe('succeeded');
    expect((await partnerA.gateway(paymentOfA.paymentId, '/status')).body.status).toBe('requires_action');
  });

  it('refuses the transfer made for another payment of the same merchant; the claim of a hash holds even if a reference matched', async () => {
    const first = await bed.newPayment();
    const firstOption = await optionIn(first.paymentId, bed.evmAccount('bob'), 'ETH');
    const [hash] = await payAsWallet('bob', firstOption);
    expect((await confirmAndWait(first.paymentId, firstOption.id, [hash as string])).status).toBe('succeeded');

    const second = await bed.newPayment();
    const secondOption = await optionIn(second.paymentId, bed.evmAccount('bob'), 'ETH');
    expect(secondOption.amount.value).toBe(firstOption.amount.value);
    const reused = bed.gateway(second.paymentId, '/confirm', {
      optionId: secondOption.id,
      results: results(hash as string),
    });
    expect(await refusedReason(reused)).toBe('reference_mismatch');
    await expectPayable(second.paymentId);

    // Were the second option the first's twin (its reference, offered as early), the used-transfers table would still refuse the hash.
    await sql`
      UPDATE payment_options AS second SET terms = jsonb_set(second.terms, '{data}', first.terms -> 'data'), created_at = first.created_at
      FROM payment_options AS first WHERE first.id = ${firstOption.id} AND second.id = ${secondOption.id}
    `.execute(bed.server.db);
    const claimedTwice = bed.gateway(second.paymentId, '/confirm', {
      optionId: secondOption.id,
      results: results(hash as string),
    });
    expect(await refusedReason(claimedTwice)).toBe('transfer_already_used');
    await expectPayable(second.paymentId);
  });

  it('refuses a plain transfer of the quoted value to the collector, made without the reference', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await optionIn(paymentId, bed.evmAccount('bob'), 'ETH');
    const plain = await sendCoins('bob', option.amount.value);
    const refused = bed.gateway(paymentId, '/confirm', { optionId: option.id, results: results(plain) });
    expect(await refusedReason(refused)).toBe('reference_mismatch');
    await expectPayable(paymentId);
  });

  it('refuses a transfer mined before its option was offered, and takes it once the option is older', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await optionIn(paymentId, bed.evmAccount('bob'), 'ETH');
    const [hash] = await payAsWallet('bob', option);
    await mined(hash as string);
    const offeredAt = async (at: Date) => {
      await sql`UPDATE payment_options SET created_at = ${at} WHERE id = ${option.id}`.execute(bed.server.db);
    };

    await offeredAt(new Date(Date.now() + 3_600_000));
    const early = bed.gateway(paymentId, '/confirm', { optionId: option.id, results: results(hash as string) });
    expect(await refusedReason(early)).toBe('transfer_predates_option');
    await expectPayable(paymentId);

    await offeredAt(new Date(Date.now() - 60_000));
    expect((await confirmAndWait(paymentId, option.id, [hash as string])).status).toBe('succeeded');
  });

  it('refuses a confirm of an option offered before transfers carried a reference: ask for options again', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await optionIn(paymentId, bed.evmAccount('bob'), 'ETH');
    await bed.server.db
      .updateTable('payment_options')
      .set({ terms: sql<string>`terms - 'data'` })
      .where('id', '=', option.id)
      .execute();
    // What the option's action asked for then: the coins alone.
    const plain = await sendCoins('bob', option.amount.value);
    const outdated = bed.gateway(paymentId, '/confirm', { optionId: option.id, results: results(plain) });
    expect(await refusedReason(outdated)).toBe('option_outdated');
    await expectPayable(paymentId);
  });

  it('answers 409 quote_expired after the quote ended, leaving the payment payable', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await optionIn(paymentId, bed.evmAccount('bob'), 'ETH');
    const pastQuoteMs = option.expiresAt * 1000 - bed.clock.now().getTime() + 1000;
    bed.clock.advance(pastQuoteMs);
    try {
      const late = await bed.gateway(paymentId, '/confirm', {
        optionId: option.id,
        results: results(`0x${randomBytes(32).toString('hex')}`),
      });
      expect([late.status, expectErrorBody(late).code], late.text).toEqual([409, 'quote_expired']);
      await expectPayable(paymentId);
    } finally {
      bed.clock.advance(-pastQuoteMs);
    }
  });
});

describe('pegged tokens and balances', () => {
  it('pays a EUR payment in EURC at par, without a quote end', async () => {
    const { paymentId } = await bed.newPayment({ amount: { unit: 'iso4217/EUR', value: '1000' } });
    const option = await optionIn(paymentId, bed.evmAccount('alice'), 'EURC');
    expect(option).toMatchObject({ amount: { value: '10000000' }, expiresAt: null });
    const status = await confirmAndWait(paymentId, option.id, await payAsWallet('alice', option));
    expect(status).toMatchObject({
      status: 'succeeded',
      info: { optionAmount: { value: '10000000', display: { assetSymbol: 'EURC' } } },
    });
    expect(await bed.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      fiatAmount: { unit: 'iso4217/EUR', value: '1000' },
      tokenAmount: { value: '10000000', display: { assetSymbol: 'EURC' } },
      transaction: { hash: status.info.txId },
    });
  });

  it('gives a buyer with no balance anywhere no options', async () => {
    const { paymentId } = await bed.newPayment();
    expect(await optionsOf(paymentId, [bed.evmAccount('dave'), bed.solanaAccount('dave')])).toEqual([]);
  });
});

describe('refused confirms leave the payment payable', () => {
  it('refuses misaligned results, a result for an unknown method, a transaction that is not the approval and a wrong signature, then pays', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await optionIn(paymentId, bed.evmAccount('bob'), 'USDT');
    expect(option.actions).toHaveLength(2);
    const signature = await signTypedDataAsWallet(bed.buyer('bob').evmPrivateKey, option.actions[1].data.params);

    const misaligned = await bed.gateway(paymentId, '/confirm', { optionId: option.id, results: results(signature) });
    expect(expectErrorBody(misaligned)).toMatchObject({ code: 'params_validation', issues: [{ field: 'results' }] });

    const unknownMethod = await bed.gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: [{ type: 'personal_sign', data: [signature] }, ...results(signature)],
    });
    expect([unknownMethod.status, expectErrorBody(unknownMethod).code]).toEqual([400, 'params_validation']);
    // A signature where the approval's transaction hash belongs.
    const wrongKind = await bed.gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: results(signature, signature),
    });
    expect(expectErrorBody(wrongKind)).toMatchObject({
      code: 'params_validation',
      issues: [{ field: 'results.0.data.0' }],
    });
    await expectPayable(paymentId);

    // A real transaction of the buyer's, but not its approval of Permit2.
    const bob = bed.buyer('bob');
    const notAnApproval = await sendTransactionAsWallet(
      bob.evmPrivateKey,
      evmChain(),
      JSON.stringify([{ from: bob.evmAddress, to: bob.evmAddress, value: '0x1' }]),
    );
    const unapproved = await bed.gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: results(notAnApproval, signature),
    });
    expect(expectErrorBody(unapproved)).toMatchObject({
      code: 'invalid_params',
      details: { reason: 'approval_failed' },
    });
    await expectPayable(paymentId);

    const alicePermit = await optionIn(paymentId, bed.evmAccount('alice'), 'USDT');
    const forged = await signTypedDataAsStranger(alicePermit.actions[0].data.params);
    const wrong = await bed.gateway(paymentId, '/confirm', { optionId: alicePermit.id, results: results(forged) });
    expect(wrong.status, wrong.text).toBe(400);
    expect(expectErrorBody(wrong)).toMatchObject({ code: 'invalid_params', details: { reason: 'invalid_signature' } });
    await expectPayable(paymentId);

    const paid = await confirmAndWait(paymentId, alicePermit.id, await payAsWallet('alice', alicePermit));
    expect(paid.status).toBe('succeeded');
  });

  it('refuses an altered Solana transaction', async () => {
    const { paymentId } = await bed.newPayment();
    const [option] = await optionsOf(paymentId, [bed.solanaAccount('erin')]);
    const fetched = await bed.gateway(paymentId, '/fetch', { optionId: option.id, data: option.actions[0].data.data });
    const signed = Buffer.from(
      await signSolanaAsWallet(bed.buyer('erin').solanaSecretKey, fetched.body.actions[0].data.params),
      'base64',
    );
    // One byte of the message (its last instruction data, the memo) changed after signing.
    signed.writeUInt8((signed.at(-1) as number) ^ 1, signed.length - 1);
    const refused = await bed.gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: results(signed.toString('base64')),
    });
    expect([refused.status, expectErrorBody(refused).code], refused.text).toEqual([400, 'invalid_params']);
    await expectPayable(paymentId);
  });
});

describe('racing confirms', () => {
  it('lets one of two different confirms win; the other gets 400 invalid_state and nothing is sent twice', async () => {
    const { paymentId } = await bed.newPayment();
    const options = await optionsOf(paymentId, [bed.evmAccount('alice')]);
    const permit = options.find((option) => symbolOf(option) === 'USDT');
    const authorization = options.find((option) => symbolOf(option) === 'USDC');
    const [permitValues, authorizationValues] = await Promise.all([
      payAsWallet('alice', permit),
      payAsWallet('alice', authorization),
    ]);
    const raced = await Promise.all([
      bed.gateway(paymentId, '/confirm', { optionId: permit.id, results: results(...permitValues) }),
      bed.gateway(paymentId, '/confirm', { optionId: authorization.id, results: results(...authorizationValues) }),
    ]);
    expect(raced.map((response) => response.status).sort(), raced.map((response) => response.text).join('\n')).toEqual([
      200, 400,
    ]);
    expect(expectErrorBody(raced.find((response) => response.status === 400)!).code).toBe('invalid_state');
    let final = (await bed.gateway(paymentId, '/status?maxPollMs=30000')).body;
    if (!final.isFinal) final = (await bed.gateway(paymentId, '/status?maxPollMs=30000')).body;
    expect(final.status).toBe('succeeded');
    expect(
      await bed.server.db.selectFrom('evm_transactions').select('id').where('payment_id', '=', paymentId).execute(),
    ).toHaveLength(1);
  });
});
