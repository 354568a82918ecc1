import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { buildSponsoredTransfer } from '../../src/chains/solana/buildSponsoredTransfer.ts';
import { solanaRpc } from '../../src/chains/solana/rpc.ts';
import { SolanaTransactionSender } from '../../src/chains/solana/transactionSender.ts';
import { verifyBuyerSignedTransaction } from '../../src/chains/solana/verifyBuyerSignedTransaction.ts';
import { connect } from '../../src/db/database.ts';
import { createChainServices } from '../../src/composition/createChainServices.ts';
import { startServerProcess } from '../support/serverProcess.ts';
import { call, expectErrorBody, startTestServer, type TestServer } from '../support/testServer.ts';
import {
  type GatewayTestbed,
  signSolanaAsWallet,
  signTypedDataAsWallet,
  startGatewayTestbed,
  TEST_PRICES,
} from './support/gatewayTestbed.ts';
import { FixedPriceSource } from '../../src/chains/prices/fixedPriceSource.ts';

let bed: GatewayTestbed;

beforeAll(async () => {
  // Two attempts, so that a submission whose chain stays down runs out of them within the test.
  bed = await startGatewayTestbed({ submitMaxAttempts: 2 });
}, 180_000);

afterAll(async () => {
  await bed?.close();
});

async function lockWaiters(): Promise<number> {
  const { rows } = await sql<{ count: string }>`
    SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
  `.execute(bed.server.db);
  return Number(rows[0]?.count);
}

async function untilLockWaiters(count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await lockWaiters()) < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} requests ever waited for the payment's row lock`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Holds the payment's row lock, as a slow transaction of another request would, while `run` sends requests. */
function whilePaymentLocked<T>(paymentId: string, run: () => Promise<T>): Promise<T> {
  return bed.server.db.transaction().execute(async (trx) => {
    await trx.selectFrom('payments').select('id').where('id', '=', paymentId).forUpdate().execute();
    return run();
  });
}

async function solanaOptionFetched(buyerName: string) {
  const { paymentId } = await bed.newPayment();
  const { body } = await bed.gateway(paymentId, '/options', { accounts: [bed.solanaAccount(buyerName)] });
  const [option] = body.options;
  const fetched = await bed.gateway(paymentId, '/fetch', { optionId: option.id, data: option.actions[0].data.data });
  expect(fetched.status, fetched.text).toBe(200);
  const signed = await signSolanaAsWallet(bed.buyer(buyerName).solanaSecretKey, fetched.body.actions[0].data.params);
  return { paymentId, option, signed, fetchedParams: fetched.body.actions[0].data.params as string };
}

describe('a Solana option after an accepted confirm', () => {
  it('refuses another fetch as invalid_state and pays with the signed transaction', async () => {
    const { paymentId, option, signed } = await solanaOptionFetched('erin');
    const confirmed = await bed.gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signed] }],
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const again = await bed.gateway(paymentId, '/fetch', { optionId: option.id, data: option.actions[0].data.data });
    expect([again.status, expectErrorBody(again).code]).toEqual([400, 'invalid_state']);
    expect(await bed.finalStatus(paymentId)).toMatchObject({ status: 'succeeded' });
  });

  it('submits the transaction the confirm checked even when a fetch rebuilt the option meanwhile', async () => {
    const { paymentId, option, signed, fetchedParams } = await solanaOptionFetched('alice');
    const [confirmed, refetched] = await whilePaymentLocked(paymentId, async () => {
      // The confirm has checked the signed transaction and waits to record itself; a fetch now builds a new one.
      const confirming = bed.gateway(paymentId, '/confirm', {
        optionId: option.id,
        results: [{ type: 'walletRpc', data: [signed] }],
      });
      await untilLockWaiters(1);
      // Fetched again until a newer blockhash gives a transaction of its own.
      for (;;) {
        const rebuilt = await bed.gateway(paymentId, '/fetch', {
          optionId: option.id,
          data: option.actions[0].data.data,
        });
        if (rebuilt.status !== 200 || rebuilt.body.actions[0].data.params !== fetchedParams)
          return [confirming, rebuilt] as const;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    expect(refetched.status, refetched.text).toBe(200);
    expect((await confirmed).status).toBe(200);
    const final = await bed.finalStatus(paymentId);
    expect(final).toMatchObject({ status: 'succeeded' });
    const stored = await bed.server.db
      .selectFrom('payment_confirmations')
      .select('terms')
      .where('payment_id', '=', paymentId)
      .executeTakeFirstOrThrow();
    const [{ transaction }] = JSON.parse(refetched.body.actions[0].data.params);
    expect((stored.terms as { transfer: { transactionBase64: string } }).transfer.transactionBase64).not.toBe(
      transaction,
    );
  });
});

describe('journaled Solana transactions', () => {
  it('are sent and settled by a service process started afterwards, which stops cleanly', async () => {
    const solana = bed.devnet.manifest.solana;
    const rpc = solanaRpc(solana.rpcUrl);
    const erin = bed.buyer('erin');
    const transfer = await buildSponsoredTransfer({
      rpc,
      collector: bed.services.solana.collector.address,
      buyer: erin.solanaAddress,
      mint: solana.tokens.find((token) => token.symbol === 'USDC')!.address,
      decimals: 6,
      amount: 1_000n,
      paymentId: 'pay_reconcile_check',
    });
    const transaction = await verifyBuyerSignedTransaction({
      signedTransactionBase64: await signSolanaAsWallet(
        erin.solanaSecretKey,
        JSON.stringify([{ transaction: transfer.transactionBase64 }]),
      ),
      expectedMessageBytesBase64: transfer.messageBytesBase64,
      buyer: erin.solanaAddress,
    });
    // Recorded by a process that then stopped before sending it.
    const sender = new SolanaTransactionSender({
      db: bed.server.db,
      rpc,
      network: solana.caip2,
      collector: bed.services.solana.collector,
      commitment: 'confirmed',
    });
    const entry = await sender.cosignAndRecord({
      purpose: 'payment',
      reference: 'pay_reconcile_check',
      transaction,
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    });
    expect(entry.status).toBe('recorded');

    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-reconcile-'));
    const chainsFile = path.join(dir, 'chains.json');
    await fs.writeFile(chainsFile, JSON.stringify(bed.chains.networks));
    const service = await startServerProcess({
      DATABASE_URL: bed.databaseUrl,
      DATA_DIR: dir,
      DEMO_PARTNER: 'never',
      CHAINS: chainsFile,
      COLLECTOR_EVM_PRIVATE_KEY: bed.keys.evmPrivateKey,
      COLLECTOR_SOLANA_SEED: bed.keys.solanaSeedHex,
    });
    try {
      const deadline = Date.now() + 30_000;
      let status = entry.status;
      while (status !== 'confirmed' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        status = (
          await bed.server.db
            .selectFrom('solana_transactions')
            .select('status')
            .where('id', '=', entry.id)
            .executeTakeFirstOrThrow()
        ).status;
      }
      expect(status, service.output()).toBe('confirmed');
    } finally {
      expect(await service.stop()).toBe(0);
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

/** An address nothing listens on: connecting is refused at once. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('a chain whose node is down', () => {
  let degraded: TestServer;
  let deadChain: string;

  beforeAll(async () => {
    // The same service and database, with the second EVM chain and Solana pointing at nodes that refuse connections.
    deadChain = bed.devnet.manifest.evm[1]!.caip2;
    const dead = await closedPortUrl();
    const chains = new ChainRegistry(
      bed.chains.networks.map((network) =>
        network.caip2 === deadChain || network.namespace === 'solana' ? { ...network, rpcUrl: dead } : network,
      ),
    );
    const db = connect(bed.databaseUrl, 2);
    const services = await createChainServices({
      db,
      networks: chains.networks,
      keys: bed.keys,
      prices: new FixedPriceSource(TEST_PRICES, { clock: bed.clock }),
    });
    degraded = await startTestServer({
      databaseUrl: bed.databaseUrl,
      context: { chains, clock: bed.clock, chainServices: services },
    });
    const close = degraded.close;
    degraded.close = async () => {
      await close();
      await db.destroy();
    };
  });

  afterAll(() => degraded?.close());

  const viaDegraded = (paymentId: string, suffix: string, body: unknown) =>
    call(degraded, `/v1/gateway/payment/${paymentId}${suffix}`, { method: 'POST', headers: bed.walletHeaders, body });

  it("still offers the other chains' options", async () => {
    const { paymentId } = await bed.newPayment();
    const alive = bed.evmAccount('alice');
    const onDeadChain = `${deadChain}:${bed.buyer('alice').evmAddress}`;
    const result = await viaDegraded(paymentId, '/options', {
      accounts: [onDeadChain, alive, bed.solanaAccount('alice')],
    });
    expect(result.status, result.text).toBe(200);
    expect(result.body.options.length).toBeGreaterThan(0);
    expect(new Set(result.body.options.map((option: { account: string }) => option.account))).toEqual(new Set([alive]));
  });

  it('answers 502 bad_gateway when only dead chains were asked about, leaving the payment payable', async () => {
    const { paymentId } = await bed.newPayment();
    const result = await viaDegraded(paymentId, '/options', {
      accounts: [`${deadChain}:${bed.buyer('alice').evmAddress}`, bed.solanaAccount('alice')],
    });
    expect([result.status, expectErrorBody(result).code], result.text).toEqual([502, 'bad_gateway']);
    expect((await bed.gateway(paymentId, '/status')).body.status).toBe('requires_action');
  });

  it('answers 502 bad_gateway to a fetch and a confirm that need the dead node', async () => {
    const { paymentId } = await bed.newPayment();
    const { body } = await bed.gateway(paymentId, '/options', {
      accounts: [bed.solanaAccount('alice'), `${deadChain}:${bed.buyer('alice').evmAddress}`],
    });
    const solanaOption = body.options.find((option: { account: string }) => option.account.startsWith('solana:'));
    const fetch = await viaDegraded(paymentId, '/fetch', {
      optionId: solanaOption.id,
      data: solanaOption.actions[0].data.data,
    });
    expect([fetch.status, expectErrorBody(fetch).code], fetch.text).toEqual([502, 'bad_gateway']);

    const evmOption = body.options.find(
      (option: any) => option.account.startsWith(deadChain) && option.amount.display.assetSymbol === 'USDC',
    );
    const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, evmOption.actions[0].data.params);
    const confirm = await viaDegraded(paymentId, '/confirm', {
      optionId: evmOption.id,
      results: [{ type: 'walletRpc', data: [signature] }],
    });
    expect([confirm.status, expectErrorBody(confirm).code], confirm.text).toEqual([502, 'bad_gateway']);
    expect((await bed.gateway(paymentId, '/status')).body.status).toBe('requires_action');
  });
});

describe('a cancel racing a confirm', () => {
  it('loses to the confirm recorded first: one of them wins, the other gets 400 invalid_state', async () => {
    const { paymentId } = await bed.newPayment();
    const { body } = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('bob')] });
    const option = body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    const signature = await signTypedDataAsWallet(bed.buyer('bob').evmPrivateKey, option.actions[0].data.params);
    const [confirmed, cancelled] = await whilePaymentLocked(paymentId, async () => {
      // The confirm has checked the signature and waits to record itself; the cancel arrives after it.
      const confirming = bed.gateway(paymentId, '/confirm', {
        optionId: option.id,
        results: [{ type: 'walletRpc', data: [signature] }],
      });
      await untilLockWaiters(1);
      const cancelling = bed.gateway(paymentId, '/cancel', {});
      await untilLockWaiters(2);
      return [confirming, cancelling] as const;
    });
    const [confirm, cancel] = [await confirmed, await cancelled];
    expect(confirm.status, confirm.text).toBe(200);
    expect([cancel.status, expectErrorBody(cancel).code], cancel.text).toEqual([400, 'invalid_state']);
    expect(await bed.finalStatus(paymentId)).toMatchObject({ status: 'succeeded' });
  });

  it('wins when it is recorded first, and the confirm gets 400 invalid_state', async () => {
    const { paymentId } = await bed.newPayment();
    const { body } = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('bob')] });
    const option = body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
    const signature = await signTypedDataAsWallet(bed.buyer('bob').evmPrivateKey, option.actions[0].data.params);
    const [cancelled, confirmed] = await whilePaymentLocked(paymentId, async () => {
      const cancelling = bed.gateway(paymentId, '/cancel', {});
      await untilLockWaiters(1);
      const confirming = bed.gateway(paymentId, '/confirm', {
        optionId: option.id,
        results: [{ type: 'walletRpc', data: [signature] }],
      });
      await untilLockWaiters(2);
      return [cancelling, confirming] as const;
    });
    const [cancel, confirm] = [await cancelled, await confirmed];
    expect(cancel.body, cancel.text).toMatchObject({
      status: 'cancelled',
      isFinal: true,
      info: null,
      paymentId,
      cancelledReason: 'cancelled_by_user',
    });
    expect([confirm.status, expectErrorBody(confirm).code], confirm.text).toEqual([400, 'invalid_state']);
    expect(
      await bed.server.db.selectFrom('evm_transactions').select('id').where('payment_id', '=', paymentId).execute(),
    ).toEqual([]);
  });
});

describe('a submission whose chain stays down', () => {
  it('marks the payment failed once its last attempt failed', async () => {
    const dead = await closedPortUrl();
    const deadChains = new ChainRegistry(bed.chains.networks.map((network) => ({ ...network, rpcUrl: dead })));
    const db = connect(bed.databaseUrl, 2);
    const deadServices = await createChainServices({
      db,
      networks: deadChains.networks,
      keys: bed.keys,
      prices: new FixedPriceSource(TEST_PRICES),
      submitMaxAttempts: 2,
    });
    // The confirm is checked by the service while the chain answers; the submission runs where it no longer does.
    await bed.stopWorkers();
    await bed.startWorkers({ chains: deadChains, chainServices: deadServices });
    try {
      const { paymentId } = await bed.newPayment();
      const { body } = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('alice')] });
      const option = body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDC');
      const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, option.actions[0].data.params);
      const confirmed = await bed.gateway(paymentId, '/confirm', {
        optionId: option.id,
        results: [{ type: 'walletRpc', data: [signature] }],
      });
      expect(confirmed.body, confirmed.text).toMatchObject({ status: 'processing', isFinal: false });

      expect(await bed.finalStatus(paymentId)).toMatchObject({ status: 'failed', isFinal: true });
      const payment = await bed.server.db
        .selectFrom('payments')
        .select(['status', 'failure_code'])
        .where('id', '=', paymentId)
        .executeTakeFirstOrThrow();
      expect(payment).toEqual({ status: 'failed', failure_code: 'submission_failed' });
      expect((await bed.listed(paymentId)).status).toBe('failed');
    } finally {
      await bed.stopWorkers();
      await bed.startWorkers();
      await db.destroy();
    }
  }, 60_000);
});
