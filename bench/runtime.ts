import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { type CheckoutTransport, createPaymentSession, FINAL_STAGES } from '@paygate/checkout';
import { evmKeyWallet } from '@paygate/checkout/keys';
import { startDevnet } from '@paygate/devnet';
import { evmSignerFromAccount, executeOptionActions, GatewayClient } from '@paygate/wallet';
import { privateKeyToAccount } from 'viem/accounts';
import { connect, migrateToLatest } from '../packages/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { percentile, type Spawned, startDevnetBenchService } from './support.ts';

/** Payments per way of paying; the two ways alternate, so a machine's drift weighs on both alike. */
const PAYMENTS = 60;

/** Payments each way replayed from memory: batches of each way in turn. */
const REPLAY_ROUNDS = 10;
const REPLAY_BATCH = 50;

v8.setFlagsFromString('--expose-gc');
/**
 * V8's collector, run around each measured payment: a full collection before it, so no garbage of the other way
 * lands on it, and a collection of the young generation at its end, inside the measure, so it pays for collecting
 * its own short-lived garbage and nothing else.
 */
const collectGarbage = vm.runInNewContext('gc') as (options?: { type: 'major' | 'minor'; execution: 'sync' }) => void;
const LONG_POLL_MS = 25_000;

interface Cost {
  wallMs: number;
  /** CPU this process spent on the payment (user + system): the client's own work, the service runs apart. */
  cpuMs: number;
}

async function measured(pay: () => Promise<void>): Promise<Cost> {
  collectGarbage({ type: 'major', execution: 'sync' });
  const cpu = process.cpuUsage();
  const started = performance.now();
  await pay();
  collectGarbage({ type: 'minor', execution: 'sync' });
  const spent = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (spent.user + spent.system) / 1000 };
}

/**
 * The p50 and the trimmed mean (the middle 80 %): a payment's CPU has a long tail on either way (a collection of the
 * old generation, a function compiled again), a few tens of milliseconds that swing a plain mean by more than the
 * difference measured.
 */
function summary(costs: Cost[], field: keyof Cost): { p50: number; trimmed: number } {
  const values = costs.map((cost) => cost[field]).sort((a, b) => a - b);
  const cut = Math.floor(values.length / 10);
  const middle = values.slice(cut, values.length - cut);
  return { p50: percentile(values, 0.5), trimmed: middle.reduce((sum, value) => sum + value, 0) / middle.length };
}

interface RecordedAnswers {
  payment: Awaited<ReturnType<CheckoutTransport['getPayment']>>;
  options: Awaited<ReturnType<CheckoutTransport['getOptions']>>;
  confirmed: Awaited<ReturnType<CheckoutTransport['confirm']>>;
  final: Awaited<ReturnType<CheckoutTransport['getStatus']>>;
}

/** The service's answers to one payment paid by `pay` through `client`. */
async function recordedAnswers(
  client: GatewayClient,
  paymentId: string,
  pay: (paymentId: string, gateway: CheckoutTransport) => Promise<void>,
): Promise<RecordedAnswers> {
  const seen: Partial<RecordedAnswers> = {};
  const recording: CheckoutTransport = {
    getPayment: async (id) => (seen.payment = await client.getPayment(id)),
    getNetworks: () => client.getNetworks(),
    getOptions: async (id, request) => (seen.options = await client.getOptions(id, request)),
    fetchActions: (id, request) => client.fetchActions(id, request),
    confirm: async (id, request, options) => {
      seen.confirmed = await client.confirm(id, request, options);
      seen.final = seen.confirmed;
      return seen.confirmed;
    },
    getStatus: async (id, options) => (seen.final = await client.getStatus(id, options)),
    cancel: (id) => client.cancel(id),
  };
  await pay(paymentId, recording);
  const { payment, options, confirmed, final } = seen;
  if (!payment || !options || !confirmed || !final) throw new Error('the recorded payment missed an answer');
  return { payment, options, confirmed, final };
}

/** A gateway that answers every payment from `answers`, in memory, with copies, as a response's parse makes. */
function replayingGateway(answers: RecordedAnswers): CheckoutTransport {
  const copy = <T>(value: T) => Promise.resolve(structuredClone(value));
  const unrecorded = () => Promise.reject(new Error('not recorded'));
  return {
    getPayment: () => copy(answers.payment),
    getNetworks: unrecorded,
    getOptions: () => copy(answers.options),
    fetchActions: unrecorded,
    confirm: () => copy(answers.confirmed),
    getStatus: () => copy(answers.final),
    cancel: unrecorded,
  };
}

/**
 * A payment paid through the checkout runtime (`@paygate/checkout`, key wallet seam) against the same payment paid
 * by raw gateway calls (the payment, options, actions, confirm, status), in one run: wall time and this process's CPU per
 * payment. Target: the runtime costs no more than 5 % over the raw calls.
 */
export async function runRuntimeBenchmark(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-runtime-'));
  const devnet = await startDevnet({ dataDir: path.join(dataDir, 'devnet') });
  const database = await startEmbeddedPostgres(dataDir);
  const db = connect(database.url, 2);
  let spawned: Spawned | undefined;
  try {
    await migrateToLatest(db, database.url);
    const partner = await createPartner(db, 'Bench partner');
    spawned = await startDevnetBenchService(devnet, dataDir, database.url, db);
    const base = spawned.url;
    const headers = { 'api-key': partner.apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${base}/v1/merchants`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ merchantName: 'Bench Shop', merchantEmail: 'bench@shop.com' }),
    });
    const merchantId = ((await created.json()) as { merchant: { id: string } }).merchant.id;
    const newPayment = async () => {
      const answer = await fetch(`${base}/v1/payments`, {
        method: 'POST',
        headers: { ...headers, 'merchant-id': merchantId, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '100' }, referenceId: randomUUID() }),
      });
      return ((await answer.json()) as { paymentId: string }).paymentId;
    };

    const chain = devnet.manifest.evm[0]!;
    const rpcUrls = Object.fromEntries(devnet.manifest.evm.map((each) => [each.caip2, each.rpcUrl]));
    const buyer = devnet.manifest.buyers.find((each) => each.name === 'erin')!;
    const account = privateKeyToAccount(buyer.evmPrivateKey);
    const client = new GatewayClient({ baseUrl: base, auth: { apiKey: partner.apiKey } });
    const signers = { eip155: evmSignerFromAccount(account, { rpcUrls }) };
    const isUsdc = (option: { amount: { display: { assetSymbol: string } | null } }) =>
      option.amount.display?.assetSymbol === 'USDC';

    // As a checkout does: the payment shown first, then paid.
    const payRaw = async (paymentId: string, gateway: CheckoutTransport = client) => {
      await gateway.getPayment(paymentId);
      const { options } = await gateway.getOptions(paymentId, { accounts: [`${chain.caip2}:${account.address}`] });
      const option = options.find(isUsdc);
      if (!option) throw new Error('no USDC option');
      const results = await executeOptionActions({ client: gateway, paymentId, option, signers });
      let status = await gateway.confirm(paymentId, { optionId: option.id, results }, { maxPollMs: LONG_POLL_MS });
      while (!status.isFinal) status = await gateway.getStatus(paymentId, { maxPollMs: LONG_POLL_MS });
      if (status.status !== 'succeeded') throw new Error(`raw payment ended ${status.status}`);
    };
    const wallet = evmKeyWallet({ privateKey: buyer.evmPrivateKey, rpcUrls });
    const payThroughRuntime = async (paymentId: string, gateway: CheckoutTransport = client) => {
      const session = createPaymentSession(paymentId, { transport: gateway });
      const reached = (done: () => boolean) =>
        new Promise<void>((resolve) => {
          const check = () => done() && resolve();
          session.subscribe(check);
          check();
        });
      session.start();
      await reached(() => session.getSnapshot().stage !== 'loading');
      await session.actions.connectWallet(wallet, { networks: [chain.caip2] });
      const option = session.getSnapshot().options.find(isUsdc);
      if (!option) throw new Error(`no USDC option: ${JSON.stringify(session.getSnapshot().error)}`);
      session.actions.chooseOption(option.id);
      await session.actions.pay();
      await reached(() => FINAL_STAGES.has(session.getSnapshot().stage));
      session.stop();
      if (session.getSnapshot().stage !== 'succeeded')
        throw new Error(`runtime payment ended ${session.getSnapshot().stage}`);
    };

    // One of each first, unmeasured: connections, JIT and the service's caches warm alike.
    await payRaw(await newPayment());
    await payThroughRuntime(await newPayment());
    const raw: Cost[] = [];
    const runtime: Cost[] = [];
    for (let index = 0; index < PAYMENTS; index++) {
      const [first, second] = [await newPayment(), await newPayment()];
      raw.push(await measured(() => payRaw(first)));
      runtime.push(await measured(() => payThroughRuntime(second)));
    }
    const line = (name: string, costs: Cost[]) => {
      const wall = summary(costs, 'wallMs');
      const cpu = summary(costs, 'cpuMs');
      return `${name.padEnd(26)} ${wall.p50.toFixed(1).padStart(8)} ${wall.trimmed.toFixed(1).padStart(12)} ${cpu.p50.toFixed(2).padStart(9)} ${cpu.trimmed.toFixed(2).padStart(12)}\n`;
    };
    process.stdout.write(
      `${PAYMENTS} USDC payments each way on ${chain.caip2}, alternating, one at a time (load ${os.loadavg()[0]!.toFixed(2)})\n`,
    );
    process.stdout.write(
      'way of paying              wall p50 wall trimmed   cpu p50  cpu trimmed (ms per payment; trimmed: mean of the middle 80 %)\n',
    );
    process.stdout.write(line('raw gateway calls', raw));
    process.stdout.write(line('checkout runtime', runtime));
    const overhead = (field: keyof Cost, statistic: 'p50' | 'trimmed') =>
      (
        (100 * (summary(runtime, field)[statistic] - summary(raw, field)[statistic])) /
        summary(raw, field)[statistic]
      ).toFixed(1);
    process.stdout.write(
      `runtime over raw by the p50: wall ${overhead('wallMs', 'p50')} %, client CPU ${overhead('cpuMs', 'p50')} %; by the trimmed mean: wall ${overhead('wallMs', 'trimmed')} %, client CPU ${overhead('cpuMs', 'trimmed')} % (target: at most 5 %)\n`,
    );

    // The same two ways against one payment's answers replayed from memory: what the runtime itself costs, without
    // the network's and the service's noise (both still sign with the key).
    const replay = replayingGateway(await recordedAnswers(client, await newPayment(), payRaw));
    const replayedId = 'pay_01JREPLAYEDPAYMENT000000000';
    const replayedCpu = { raw: 0, runtime: 0 };
    for (let round = 0; round < REPLAY_ROUNDS; round++) {
      // Each way goes first in every other round, so neither always inherits the other's garbage.
      const ways = round % 2 ? (['runtime', 'raw'] as const) : (['raw', 'runtime'] as const);
      for (const way of ways) {
        const cpu = process.cpuUsage();
        for (let index = 0; index < REPLAY_BATCH; index++) {
          await (way === 'raw' ? payRaw(replayedId, replay) : payThroughRuntime(replayedId, replay));
        }
        const spent = process.cpuUsage(cpu);
        replayedCpu[way] += (spent.user + spent.system) / 1000;
      }
    }
    const replayedPayments = REPLAY_ROUNDS * REPLAY_BATCH;
    const [rawMs, runtimeMs] = [replayedCpu.raw / replayedPayments, replayedCpu.runtime / replayedPayments];
    process.stdout.write(
      `replayed from memory, ${replayedPayments} payments each way: raw ${rawMs.toFixed(3)} ms, runtime ${runtimeMs.toFixed(3)} ms of CPU per payment; the runtime's own work ${(runtimeMs - rawMs).toFixed(3)} ms, ${((100 * (runtimeMs - rawMs)) / rawMs).toFixed(1)} % over raw\n`,
    );
  } finally {
    spawned?.child.kill('SIGTERM');
    await db.destroy();
    await database.stop();
    await devnet.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
