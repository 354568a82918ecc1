import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefundWorker } from '../../src/refunds/refundWorker.ts';
import { loadScreeningList } from '../../src/screening/listScreening.ts';
import { parseScreeningList } from '../../src/screening/screeningListFile.ts';
import { screeningFromConfig } from '../../src/screening/screeningFromConfig.ts';
import { systemClock } from '../../src/clock.ts';
import { type GatewayTestbed, signTypedDataAsWallet, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { addDestination, newEvmDestination, payInUsdc, settlementWorker, usdcAssets } from '../settlement/support.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { devnetPlainWallet } from '../support/devnetPlainWallet.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { auditOfMerchant } from '../support/ledgerAudit.ts';
import { runCli } from '../support/serverProcess.ts';
import { call, expectErrorBody } from '../support/testServer.ts';
import { warningsInto } from '../support/warnings.ts';

/**
 * Address screening against the operator's list (SCREENING=list), on the devnet: a listed buyer is refused at its
 * options and at its confirm, a listed destination gets no settlement and no refund, every decision is recorded with
 * the list's version, and a list loaded while the service runs applies at once.
 */
describe('address screening against the operator’s list', () => {
  let bed: GatewayTestbed;
  let dir: string;
  const db = () => bed.server.db;
  const address = (name: string) => bed.buyer(name).evmAddress;
  const apiHeaders = (merchantId: string) => ({ 'api-key': bed.partner.apiKey, 'merchant-id': merchantId });
  const wallet = devnetPlainWallet(() => bed.devnet);
  const paymentOf = async (merchantId: string, paymentId: string) =>
    (await call(bed.server, `/v1/payments/${paymentId}`, { headers: apiHeaders(merchantId) })).body;

  /** Makes `addresses` the list, as `paygate screening load` does; returns its version. */
  async function listOnly(...addresses: string[]): Promise<string> {
    return (await loadScreeningList(db(), parseScreeningList(addresses.join('\n')), 'test')).version;
  }

  const decisionsOf = (paymentId: string) =>
    db()
      .selectFrom('screening_decisions')
      .select(['account', 'step', 'blocked', 'provider', 'list_version'])
      .where('payment_id', '=', paymentId)
      .orderBy('id')
      .execute();

  beforeAll(async () => {
    bed = await startGatewayTestbed({ env: { SCREENING: 'list' } });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-screening-'));
  }, 180_000);
  afterAll(async () => {
    await bed?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('fails closed while no list is loaded: options answer 503 screening_unavailable with Retry-After', async () => {
    const { paymentId } = await bed.newPayment();
    const answer = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('alice')] });
    expect(answer.status, answer.text).toBe(503);
    expect(expectErrorBody(answer)).toMatchObject({
      code: 'service_unavailable',
      details: { reason: 'screening_unavailable' },
    });
    expect(answer.headers.get('retry-after')).toBe('10');
  });

  it('refuses the options of a listed account, loaded by paygate screening load, and records each decision with the list version', async () => {
    const file = path.join(dir, 'blocked.txt');
    // Upper-case hex, as lists often write it: the same key as the buyer's checksummed address.
    await fs.writeFile(file, `# operator's list\n0x${address('bob').slice(2).toUpperCase()}\nnot an address\n`);
    const loaded = await runCli(['screening', 'load', file], { DATABASE_URL: bed.databaseUrl });
    expect(loaded.code, loaded.stderr).toBe(0);
    const lines = loaded.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({ skipped: 'not an address', reason: expect.any(String) });
    const summary = lines.at(-1);
    expect(summary).toMatchObject({ addresses: 1, skipped: 1 });
    expect(summary.version).toMatch(/^[0-9a-f]{16}$/);

    const { paymentId } = await bed.newPayment();
    for (const accounts of [[bed.evmAccount('bob')], [bed.evmAccount('alice'), bed.evmAccount('bob')]]) {
      const refused = await bed.gateway(paymentId, '/options', { accounts });
      expect(refused.status, refused.text).toBe(403);
      expect(expectErrorBody(refused)).toMatchObject({
        code: 'account_blocked',
        details: { account: bed.evmAccount('bob') },
      });
    }
    const offered = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('alice')] });
    expect(offered.status, offered.text).toBe(200);
    expect(offered.body.options.length).toBeGreaterThan(0);

    const decision = (name: string, blocked: boolean) => ({
      account: bed.evmAccount(name),
      step: 'options',
      blocked,
      provider: 'list',
      list_version: summary.version,
    });
    // Bob alone, then both (each account screened and recorded), then alice alone.
    expect(await decisionsOf(paymentId)).toEqual([
      decision('bob', true),
      decision('alice', false),
      decision('bob', true),
      decision('alice', false),
    ]);
    const blocked = await runCli(['screening', 'blocked', '--limit', '1'], { DATABASE_URL: bed.databaseUrl });
    expect(JSON.parse(blocked.stdout)).toMatchObject({ account: bed.evmAccount('bob'), step: 'options', paymentId });
  });

  it('refuses the confirm of a payer listed after its options were given (a list reloaded while running): nothing claimed, nothing sent', async () => {
    await listOnly(address('bob'));
    const { paymentId } = await bed.newPayment();
    const options = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('alice')] });
    expect(options.status, options.text).toBe(200);
    const usdc = options.body.options.find(
      (candidate: any) => candidate.amount.unit === `caip19/${usdcAssets(bed).evm.caip19}`,
    );
    const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, usdc.actions[0].data.params);

    const version = await listOnly(address('bob'), address('alice'));
    const confirm = await bed.gateway(paymentId, '/confirm', {
      optionId: usdc.id,
      results: [{ type: 'walletRpc', data: [signature] }],
    });
    expect(confirm.status, confirm.text).toBe(403);
    expect(expectErrorBody(confirm)).toMatchObject({
      code: 'account_blocked',
      details: { account: bed.evmAccount('alice') },
    });
    expect((await bed.gateway(paymentId, '/status')).body.status).toBe('requires_action');
    expect(
      await db().selectFrom('payment_confirmations').select('payment_id').where('payment_id', '=', paymentId).execute(),
    ).toEqual([]);
    expect(
      await db().selectFrom('evm_transactions').select('id').where('payment_id', '=', paymentId).execute(),
    ).toEqual([]);
    expect((await decisionsOf(paymentId)).at(-1)).toEqual({
      account: bed.evmAccount('alice'),
      step: 'confirm',
      blocked: true,
      provider: 'list',
      list_version: version,
    });
  });

  it('holds a listed sender’s transfer to a deposit address: the payment not credited, the value owed to the sender and balanced in the audit, no refund to it', async () => {
    await listOnly(address('bob'));
    const merchantId = (await createMerchant(bed.server, bed.partner.apiKey)).id;
    const { paymentId } = await createPayment(bed.server, bed.partner.apiKey, merchantId);
    const deposit = await quoteDeposit(db(), bed.services.evm.collector, paymentId, {
      chain: bed.evmChain(),
      asset: usdcAssets(bed).evm.caip19,
    });
    const hash = await wallet.send(deposit, 10_000_000n, { from: 'bob' });

    await expect
      .poll(async () => (await paymentOf(merchantId, paymentId)).exceptions?.length ?? 0, { timeout: 30_000 })
      .toBe(1);
    const payment = await paymentOf(merchantId, paymentId);
    expect(payment.status).toBe('requires_action');
    expect(payment.exceptions[0]).toMatchObject({
      type: 'held',
      amount: { unit: `caip19/${usdcAssets(bed).evm.caip19}`, value: '10000000' },
      transaction: { hash },
      fromAccountCaip10: bed.evmAccount('bob'),
    });
    const recorded = await withDepositTables(db())
      .selectFrom('evm_deposits')
      .select('outcome')
      .where('payment_id', '=', paymentId)
      .execute();
    expect(recorded).toEqual([{ outcome: 'held' }]);
    expect(
      (await decisionsOf(paymentId))
        .filter((decision) => decision.step === 'deposit')
        .map((decision) => decision.blocked),
    ).toContain(true);
    const { lines, differing } = await auditOfMerchant(db(), merchantId);
    expect(differing).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ check: 'buyers', ledger: '10000000', records: '10000000' }));

    const sentBack = await call(bed.server, '/v1/refunds', {
      method: 'POST',
      headers: apiHeaders(merchantId),
      body: { paymentId, exceptionId: payment.exceptions[0].id },
    });
    expect(sentBack.status, sentBack.text).toBe(403);
    expect(expectErrorBody(sentBack)).toMatchObject({ code: 'account_blocked' });
    // Nothing was announced to the merchant's webhooks for it.
    const events = await db().selectFrom('webhook_events').select('type').where('payment_id', '=', paymentId).execute();
    expect(events.map((event) => event.type)).toEqual(['payment.created']);
  }, 120_000);

  it('refuses a listed settlement destination, added or changed to', async () => {
    const listed = newEvmDestination(bed);
    await listOnly(listed.split(':')[2] as string);
    const merchantId = (await createMerchant(bed.server, bed.partner.apiKey)).id;
    const asset = usdcAssets(bed).evm.caip19;
    const refused = await call(bed.server, `/v1/merchants/${merchantId}/settlements/crypto`, {
      method: 'POST',
      headers: { 'api-key': bed.partner.apiKey, 'idempotency-key': randomUUID() },
      body: { settlements: [{ asset, destination: listed }] },
    });
    expect(refused.status, refused.text).toBe(403);
    expect(expectErrorBody(refused)).toMatchObject({ code: 'account_blocked', details: { account: listed } });
    expect(
      await db().selectFrom('crypto_settlements').select('id').where('merchant_id', '=', merchantId).execute(),
    ).toEqual([]);

    const id = await addDestination(bed, merchantId, asset, newEvmDestination(bed));
    const changed = await call(bed.server, `/v1/merchants/${merchantId}/settlements/crypto/${id}`, {
      method: 'PUT',
      headers: { 'api-key': bed.partner.apiKey },
      body: { destination: listed },
    });
    expect(changed.status, changed.text).toBe(403);
    expect(expectErrorBody(changed)).toMatchObject({ code: 'account_blocked' });
  });

  it('sends no settlement to a destination listed after it was added, until the list lets it go', async () => {
    await listOnly();
    const merchantId = (await createMerchant(bed.server, bed.partner.apiKey)).id;
    const destination = newEvmDestination(bed);
    await addDestination(bed, merchantId, usdcAssets(bed).evm.caip19, destination);
    await payInUsdc(bed, merchantId, 'evm', 250n, 'alice');
    await listOnly(destination.split(':')[2] as string);

    const problems: string[] = [];
    const worker = settlementWorker(
      bed,
      problems,
      screeningFromConfig({ provider: 'list', onFailure: 'closed' }, db(), (message) => problems.push(message)),
    );
    const blockedRound = await worker.runOnce();
    expect(blockedRound.created).toEqual([]);
    expect(problems).toContainEqual(expect.stringContaining(`its destination ${destination} is blocked`));
    expect(
      await db().selectFrom('settlement_batches').select('id').where('merchant_id', '=', merchantId).execute(),
    ).toEqual([]);

    await listOnly();
    expect((await worker.runOnce()).created).toHaveLength(1);
  }, 120_000);

  it('refuses a refund to a listed payer; a refund whose payer is listed after it was asked waits unsent', async () => {
    await listOnly();
    const merchantId = (await createMerchant(bed.server, bed.partner.apiKey)).id;
    const listedLater = await payInUsdc(bed, merchantId, 'evm', 300n, 'erin');
    const refundBody = (paymentId: string) => ({
      paymentId,
      amount: { unit: 'iso4217/USD', value: '100' },
      send: true,
    });
    const asked = await call(bed.server, '/v1/refunds', {
      method: 'POST',
      headers: apiHeaders(merchantId),
      body: refundBody(listedLater),
    });
    expect(asked.status, asked.text).toBe(200);

    await listOnly(address('erin'));
    const refused = await call(bed.server, '/v1/refunds', {
      method: 'POST',
      headers: apiHeaders(merchantId),
      body: refundBody(listedLater),
    });
    expect(refused.status, refused.text).toBe(403);
    expect(expectErrorBody(refused)).toMatchObject({
      code: 'account_blocked',
      details: { account: bed.evmAccount('erin') },
    });

    const problems: string[] = [];
    const refunds = new RefundWorker({
      db: db(),
      chains: bed.chains,
      services: bed.services,
      clock: systemClock,
      log: warningsInto(problems),
      screening: screeningFromConfig({ provider: 'list', onFailure: 'closed' }, db(), (message) =>
        problems.push(message),
      ),
    });
    expect((await refunds.runOnce()).waiting).toContain(asked.body.id);
    expect(problems).toContainEqual(expect.stringContaining(`refund ${asked.body.id} waits`));
    const journaled = await db()
      .selectFrom('evm_transactions')
      .select('id')
      .where('payment_id', '=', asked.body.id)
      .execute();
    expect(journaled).toEqual([]);

    await listOnly();
    expect((await refunds.runOnce()).driven).toContain(asked.body.id);
  }, 120_000);
});
