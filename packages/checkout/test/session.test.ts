import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CheckoutSnapshot, createPaymentSession } from '../src/index.ts';
import {
  ADDRESS,
  EVM_CHAIN,
  FakeClock,
  option,
  PAYMENT_ID,
  payment,
  refused,
  ScriptedTransport,
  scriptedWallet,
  settle,
  status,
  unreachable,
} from './support/fakeSeams.ts';

function started(transport = new ScriptedTransport(), clock = new FakeClock()) {
  const events: { name: string; fields: Record<string, unknown> }[] = [];
  const session = createPaymentSession(PAYMENT_ID, {
    transport,
    clock,
    telemetry: { event: (name, fields) => events.push({ name, fields }) },
  });
  const stages: string[] = [];
  session.subscribe(() => {
    const { stage } = session.getSnapshot();
    if (stages.at(-1) !== stage) stages.push(stage);
  });
  session.start();
  return { session, transport, clock, events, stages, snapshot: () => session.getSnapshot() };
}

/** Started, and past the wait before the first status check, which the gateway holds until `settleStatus`. */
async function following(transport = new ScriptedTransport(), clock = new FakeClock()) {
  const run = started(transport, clock);
  await settle();
  await clock.advance(2_000);
  return run;
}

async function atOptions(transport = new ScriptedTransport()) {
  const run = await following(transport);
  const wallet = scriptedWallet();
  await run.session.actions.connectWallet(wallet);
  return { ...run, wallet };
}

describe('a payment session', () => {
  it('loads the payment, checks its status a little later, then follows it by long-poll; resumed, it checks at once', async () => {
    const { snapshot, transport, stages, session, clock } = started();
    expect(snapshot().stage).toBe('loading');
    await settle();
    expect(snapshot().stage).toBe('connect');
    expect(snapshot().payment?.merchant.name).toBe('Shop');
    expect(stages).toEqual(['connect']);
    await clock.advance(1_999);
    expect(transport.count('getStatus')).toBe(0);
    await clock.advance(1);
    transport.settleStatus(status('requires_action'));
    await settle();
    expect(transport.calls.filter((call) => call.method === 'getStatus').map((call) => call.args)).toEqual([
      [PAYMENT_ID, { maxPollMs: 0 }],
      [PAYMENT_ID, { maxPollMs: 25_000 }],
    ]);
    session.stop();
    transport.settleStatus(status('requires_action'));
    await settle();
    session.start();
    await settle();
    expect(transport.last('getStatus')).toEqual([PAYMENT_ID, { maxPollMs: 0 }]);
  });

  it('long-polls from the version it last saw, so a change made before its request arrived answers it at once', async () => {
    const transport = new ScriptedTransport();
    transport.defaults.getPayment = { ...payment(), version: 'v-loaded' };
    const { snapshot, clock } = started(transport);
    await settle();
    expect(snapshot().payment).not.toHaveProperty('version');
    await clock.advance(2_000);
    expect(transport.last('getStatus')).toEqual([PAYMENT_ID, { maxPollMs: 25_000, since: 'v-loaded' }]);
    transport.settleStatus(status('requires_action', { version: 'v-changed' }));
    await settle();
    expect(transport.last('getStatus')).toEqual([PAYMENT_ID, { maxPollMs: 25_000, since: 'v-changed' }]);
  });

  it('shows an unknown payment as unavailable, with the service code, and does not retry it', async () => {
    const transport = new ScriptedTransport().script('getPayment', refused(404, 'payment_not_found'));
    const { snapshot, session } = started(transport);
    await settle();
    expect(snapshot()).toMatchObject({
      stage: 'unavailable',
      error: { code: 'payment_not_found', retryable: false },
    });
    await session.actions.retry();
    expect(transport.count('getPayment')).toBe(1);
  });

  it('keeps loading with a retryable problem when the service does not answer, and loads on retry', async () => {
    const transport = new ScriptedTransport().script('getPayment', unreachable());
    const { snapshot, session } = started(transport);
    await settle();
    expect(snapshot()).toMatchObject({ stage: 'loading', error: { code: 'network', retryable: true } });
    await session.actions.retry();
    await settle();
    expect(snapshot()).toMatchObject({ stage: 'connect', error: null });
  });

  it('connects a wallet and asks options for its address on every network of its namespace', async () => {
    const { snapshot, transport, stages } = await atOptions();
    expect(stages).toEqual(['connect', 'connecting', 'quoting', 'options']);
    expect(transport.last('getOptions')).toEqual([
      PAYMENT_ID,
      { accounts: [`${EVM_CHAIN}:${ADDRESS}`, `eip155:10:${ADDRESS}`] },
    ]);
    expect(snapshot()).toMatchObject({
      wallet: { name: 'Scripted', namespace: 'eip155', address: ADDRESS },
      selectedOptionId: 'opt_a',
    });
    expect(snapshot().options.map((entry) => entry.id)).toEqual(['opt_a', 'opt_b']);
  });

  it('quotes only on the networks the buyer limited it to, without listing the networks', async () => {
    const { session, transport, snapshot } = started();
    await settle();
    await session.actions.connectWallet(scriptedWallet(), { networks: ['eip155:10', 'solana:x'] });
    expect(transport.count('getNetworks')).toBe(0);
    expect(transport.last('getOptions')).toEqual([PAYMENT_ID, { accounts: [`eip155:10:${ADDRESS}`] }]);
    await session.actions.refreshQuotes();
    expect(transport.last('getOptions')?.[1]).toMatchObject({ accounts: [`eip155:10:${ADDRESS}`] });
    expect(snapshot().stage).toBe('options');
  });

  it('goes back to connect when the buyer declines to connect, and connects on retry', async () => {
    const { session, snapshot } = started();
    await settle();
    let declined = true;
    const wallet = scriptedWallet({
      connect: async () => {
        if (!declined) return ADDRESS;
        declined = false;
        throw Object.assign(new (await import('@paygate/wallet/browser')).UserRejectedError('eth_requestAccounts'));
      },
    });
    await session.actions.connectWallet(wallet);
    expect(snapshot()).toMatchObject({ stage: 'connect', error: { code: 'user_rejected', retryable: true } });
    await session.actions.retry();
    expect(snapshot()).toMatchObject({ stage: 'options', error: null });
  });

  it('says so when the wallet shares no account, or the account cannot pay', async () => {
    const { session, snapshot } = started(
      new ScriptedTransport().script('getOptions', { options: [] }, { options: [option('opt_c')] }),
    );
    await settle();
    await session.actions.connectWallet(scriptedWallet({ connect: async () => undefined }));
    expect(snapshot()).toMatchObject({ stage: 'connect', wallet: null, error: { code: 'no_account' } });
    await session.actions.connectWallet(scriptedWallet());
    expect(snapshot()).toMatchObject({ stage: 'options', options: [], error: { code: 'no_option', retryable: true } });
    await session.actions.retry();
    expect(snapshot()).toMatchObject({ stage: 'options', selectedOptionId: 'opt_c', error: null });
  });

  it('pays the chosen option: signs once, confirms, and reaches succeeded through the status it follows', async () => {
    const { session, snapshot, transport, wallet, stages } = await atOptions();
    session.actions.chooseOption('opt_b');
    session.actions.chooseOption('opt_unknown');
    expect(snapshot().selectedOptionId).toBe('opt_b');
    await session.actions.pay();
    expect(stages.slice(-3)).toEqual(['signing', 'confirming', 'processing']);
    expect(wallet.signed).toHaveLength(1);
    expect(transport.last('confirm')).toEqual([
      PAYMENT_ID,
      { optionId: 'opt_b', results: [{ type: 'walletRpc', data: [`0x${'ab'.repeat(65)}`] }] },
      { maxPollMs: 25_000 },
    ]);
    const info = {
      optionAmount: option('opt_b').amount,
      txId: `0x${'cd'.repeat(32)}`,
    };
    transport.settleStatus(status('succeeded', { info }));
    await settle();
    expect(snapshot()).toMatchObject({ stage: 'succeeded', paid: info, failureCode: null, error: null });
  });

  it('asks no status while its own confirmation is held, whose answer is the status; stopped, it ends its request', async () => {
    const info = { optionAmount: option('opt_a').amount, txId: `0x${'cd'.repeat(32)}` };
    const paid = new ScriptedTransport();
    paid.defaults.confirm = status('succeeded', { info });
    const first = await atOptions(paid);
    expect(paid.count('getStatus')).toBe(1);
    await first.session.actions.pay();
    // The request held since the payment loaded answers now: it is not heard, so it changes nothing.
    paid.settleStatus(status('processing'));
    await settle();
    expect(first.snapshot()).toMatchObject({ stage: 'succeeded', paid: info });
    expect(paid.count('getStatus')).toBe(1);

    // Still processing when the confirmation answers: the follower takes over, holding its first request.
    const second = await atOptions();
    await second.session.actions.pay();
    await settle();
    expect(second.transport.count('getStatus')).toBe(2);
    expect(second.transport.last('getStatus')).toEqual([PAYMENT_ID, { maxPollMs: 25_000 }]);
    expect(second.transport.endedStatus).toBe(0);
    second.session.stop();
    await settle();
    expect(second.transport.endedStatus).toBe(1);
  });

  it('a second click on pay while the first signs asks the wallet once', async () => {
    const { session, wallet, transport } = await atOptions();
    await Promise.all([session.actions.pay(), session.actions.pay()]);
    expect(wallet.signed).toHaveLength(1);
    expect(transport.count('confirm')).toBe(1);
  });

  it('repeats an unanswered confirmation with the same signed results and never asks the wallet again', async () => {
    const transport = new ScriptedTransport().script('confirm', unreachable(), refused(503, 'unavailable'));
    const { session, snapshot, wallet } = await atOptions(transport);
    await session.actions.pay();
    expect(snapshot()).toMatchObject({ stage: 'confirming', error: { code: 'network', retryable: true } });
    await session.actions.pay();
    await session.actions.cancelPayment();
    session.actions.disconnectWallet();
    expect(transport.count('cancel')).toBe(0);
    await session.actions.retry();
    expect(snapshot()).toMatchObject({ stage: 'confirming', error: { code: 'unavailable', retryable: true } });
    await session.actions.retry();
    expect(snapshot().stage).toBe('processing');
    expect(wallet.signed).toHaveLength(1);
    const confirms = transport.calls.filter((call) => call.method === 'confirm').map((call) => call.args[1]);
    expect(confirms).toHaveLength(3);
    expect(confirms[1]).toEqual(confirms[0]);
    expect(confirms[2]).toEqual(confirms[0]);
  });

  it('a refused confirmation returns to the options with its code; paying again signs anew', async () => {
    const transport = new ScriptedTransport().script('confirm', refused(400, 'invalid_signature'));
    const { session, snapshot, wallet } = await atOptions(transport);
    await session.actions.pay();
    expect(snapshot()).toMatchObject({ stage: 'options', error: { code: 'invalid_signature', retryable: false } });
    await session.actions.pay();
    expect(snapshot().stage).toBe('processing');
    expect(wallet.signed).toHaveLength(2);
  });

  it('a wallet that declines to sign leaves the buyer on the options, ready to try again', async () => {
    const { UserRejectedError } = await import('@paygate/wallet/browser');
    let calls = 0;
    const transport = new ScriptedTransport();
    const run = started(transport);
    await settle();
    const wallet = scriptedWallet({
      sign: async () => {
        calls += 1;
        if (calls === 1) throw new UserRejectedError('eth_signTypedData_v4');
        return `0x${'ef'.repeat(65)}`;
      },
    });
    await run.session.actions.connectWallet(wallet);
    await run.session.actions.pay();
    expect(run.snapshot()).toMatchObject({ stage: 'options', error: { code: 'user_rejected', retryable: true } });
    expect(transport.count('confirm')).toBe(0);
    await run.session.actions.retry();
    expect(run.snapshot().stage).toBe('processing');
  });

  it('asks for buyer details before signing, by the service form or by the page’s own', async () => {
    const collectData = { url: 'https://pay.example/collect/abc', schema: { type: 'object' } };
    const transport = new ScriptedTransport().script(
      'getOptions',
      { options: [option('opt_a', { collectData })] },
      { options: [option('opt_a', { collectData })] },
    );
    const { session, snapshot, wallet } = await atOptions(transport);
    await session.actions.pay();
    expect(snapshot()).toMatchObject({ stage: 'collecting', collectData });
    expect(wallet.signed).toHaveLength(0);
    session.actions.buyerDataFormFailed('link_expired');
    expect(snapshot()).toMatchObject({ stage: 'options', collectData: null, error: { code: 'buyer_data' } });
    await session.actions.retry();
    expect(snapshot().stage).toBe('collecting');
    await session.actions.buyerDataFormCompleted();
    expect(snapshot().stage).toBe('processing');
    expect(transport.last('confirm')?.[1]).not.toHaveProperty('collectedData');

    const second = await atOptions(
      new ScriptedTransport().script('getOptions', { options: [option('opt_a', { collectData })] }),
    );
    await second.session.actions.pay();
    const collectedData = { fields: [{ id: 'fullName', value: 'Ada Lovelace' }] };
    await second.session.actions.submitBuyerData(collectedData);
    expect(second.transport.last('confirm')?.[1]).toMatchObject({ optionId: 'opt_a', collectedData });
  });

  it('re-quotes an option whose quote ran out instead of paying an old amount', async () => {
    const clock = new FakeClock();
    const expiring = option('opt_a', { expiresAt: Math.floor(clock.now() / 1000) + 30 });
    const transport = new ScriptedTransport().script('getOptions', { options: [expiring] });
    const run = started(transport, clock);
    await settle();
    await run.session.actions.connectWallet(scriptedWallet());
    await clock.advance(31_000);
    await run.session.actions.pay();
    expect(transport.last('getOptions')?.[1]).toMatchObject({ refresh: ['opt_a'] });
    expect(run.snapshot().stage).toBe('options');
    expect(transport.count('confirm')).toBe(0);
  });

  it.each([
    ['expired', status('expired'), { stage: 'expired' }],
    ['cancelled', status('cancelled'), { stage: 'cancelled' }],
    ['failed', status('failed', { failureCode: 'underpaid' }), { stage: 'failed', failureCode: 'underpaid' }],
    ['processing', status('processing'), { stage: 'processing' }],
  ])('shows a payment that became %s elsewhere', async (_name, next, expected) => {
    const { snapshot, transport } = await atOptions();
    transport.settleStatus(next);
    await settle();
    expect(snapshot()).toMatchObject(expected);
  });

  it('the buyer cancels before paying', async () => {
    const { session, snapshot, transport } = await atOptions();
    await session.actions.cancelPayment();
    expect(snapshot().stage).toBe('cancelled');
    await session.actions.pay();
    await session.actions.connectWallet(scriptedWallet());
    expect(transport.count('confirm')).toBe(0);
    expect(snapshot().stage).toBe('cancelled');
  });

  it('backs off while the status cannot be read, and stops following when stopped', async () => {
    const transport = new ScriptedTransport().script('getStatus', unreachable(), unreachable());
    const { session, clock } = await following(transport);
    expect(transport.count('getStatus')).toBe(1);
    await clock.advance(1_999);
    expect(transport.count('getStatus')).toBe(1);
    await clock.advance(1);
    expect(transport.count('getStatus')).toBe(2);
    await clock.advance(4_000);
    expect(transport.count('getStatus')).toBe(3);
    session.stop();
    transport.settleStatus(status('requires_action'));
    await clock.advance(60_000);
    expect(transport.count('getStatus')).toBe(3);
    session.start();
    await settle();
    expect(transport.count('getStatus')).toBe(4);
  });

  it('reports stages and problems to telemetry, never a signature', async () => {
    const transport = new ScriptedTransport().script('confirm', unreachable());
    const { session, events } = await atOptions(transport);
    await session.actions.pay();
    expect(events.map((event) => event.name)).toContain('problem');
    expect(events.find((event) => event.name === 'stage')?.fields).toMatchObject({ from: 'loading', to: 'connect' });
    expect(JSON.stringify(events)).not.toContain('abab');
  });

  it('every snapshot survives JSON, whatever the buyer does and the service answers', async () => {
    const answer = fc.constantFrom<unknown>(
      'ok',
      unreachable(),
      refused(400, 'invalid_params'),
      refused(503, 'unavailable'),
    );
    const step = fc.oneof(
      fc.record({ act: fc.constantFrom('connect', 'choose', 'pay', 'refresh', 'retry', 'cancel', 'disconnect') }),
      fc.record({ act: fc.constant('formCompleted') }),
      fc.record({ act: fc.constant('status'), value: fc.constantFrom('processing', 'succeeded', 'failed', 'expired') }),
      fc.record({ act: fc.constant('answer'), method: fc.constantFrom('getOptions', 'confirm', 'cancel'), answer }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), fc.boolean(), async (steps, needsData) => {
        const collectData = needsData ? { url: 'https://pay.example/collect/x', schema: {} } : null;
        const transport = new ScriptedTransport();
        transport.defaults.getOptions = { options: [option('opt_a', { collectData }), option('opt_b')] };
        const { session } = started(transport);
        const seen: CheckoutSnapshot[] = [];
        session.subscribe(() => seen.push(session.getSnapshot()));
        await settle();
        for (const entry of steps) {
          const { actions } = session;
          if (entry.act === 'connect') await actions.connectWallet(scriptedWallet());
          if (entry.act === 'choose') actions.chooseOption('opt_b');
          if (entry.act === 'pay') await actions.pay();
          if (entry.act === 'refresh') await actions.refreshQuotes();
          if (entry.act === 'retry') await actions.retry();
          if (entry.act === 'cancel') await actions.cancelPayment();
          if (entry.act === 'disconnect') actions.disconnectWallet();
          if (entry.act === 'formCompleted') await actions.buyerDataFormCompleted();
          if (entry.act === 'status' && 'value' in entry) transport.settleStatus(status(entry.value));
          if (entry.act === 'answer' && 'method' in entry && entry.answer !== 'ok') {
            transport.script(entry.method, entry.answer);
          }
          await settle();
        }
        session.stop();
        for (const snapshot of seen) expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
      }),
      { numRuns: 60 },
    );
  });
});

describe('a payment part of which arrived by a transfer to its deposit address', () => {
  const usdcAmount = (value: bigint) => ({ ...option('opt_a').amount, value: value.toString() });
  const part = (amount: string) => ({
    amount: usdcAmount(BigInt(amount)),
    expected: usdcAmount(10_000_000n),
    remaining: usdcAmount(10_000_000n - BigInt(amount)),
    address: '0x00000000000000000000000000000000000000d1',
    uri: `ethereum:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913@8453/transfer?address=0x00000000000000000000000000000000000000d1&uint256=${10_000_000n - BigInt(amount)}`,
  });

  it('asks for the rest, follows each further part, and offers no wallet payment of the whole meanwhile', async () => {
    const { session, snapshot, transport, wallet } = await atOptions();
    transport.settleStatus(status('requires_action', { received: [part('6000000')] }));
    await settle();
    expect(snapshot()).toMatchObject({
      stage: 'underpaid',
      received: [{ amount: { value: '6000000' }, remaining: { value: '4000000' } }],
    });
    await session.actions.pay();
    await session.actions.connectWallet(scriptedWallet());
    session.actions.chooseOption('opt_b');
    await session.actions.refreshQuotes();
    await session.actions.cancelPayment();
    expect([wallet.signed.length, transport.count('confirm'), transport.count('cancel')]).toEqual([0, 0, 0]);
    expect(snapshot().stage).toBe('underpaid');

    transport.settleStatus(status('requires_action', { received: [part('9000000')] }));
    await settle();
    expect(snapshot()).toMatchObject({ stage: 'underpaid', received: [{ remaining: { value: '1000000' } }] });
    transport.settleStatus(status('succeeded', { info: { optionAmount: option('opt_a').amount, txId: '0x02' } }));
    await settle();
    expect(snapshot()).toMatchObject({ stage: 'succeeded', paid: { txId: '0x02' } });
  });

  it('asks for the rest from the first render of a payment opened again', async () => {
    const transport = new ScriptedTransport();
    transport.defaults.getPayment = { ...payment(), received: [part('6000000')] };
    const { snapshot } = started(transport);
    await settle();
    expect(snapshot()).toMatchObject({ stage: 'underpaid', received: [{ remaining: { value: '4000000' } }] });
    expect(snapshot().payment).not.toHaveProperty('received');
  });

  it('lets a wallet already signing finish, and asks for the rest only if the service refused what it signed', async () => {
    const transport = new ScriptedTransport().script('confirm', refused(400, 'invalid_signature'));
    const { session, snapshot, wallet, stages } = await atOptions(transport);
    await session.actions.pay();
    transport.settleStatus(status('requires_action', { received: [part('6000000')] }));
    await settle();
    expect(wallet.signed).toHaveLength(1);
    expect(stages.slice(-4)).toEqual(['signing', 'confirming', 'options', 'underpaid']);
    expect(snapshot()).toMatchObject({ stage: 'underpaid', received: [{ remaining: { value: '4000000' } }] });
  });
});

describe('a payment loaded in its final state', () => {
  it('shows the outcome with what the status adds (the paid amount)', async () => {
    const transport = new ScriptedTransport();
    transport.defaults.getPayment = payment('succeeded');
    const info = { optionAmount: option('opt_a').amount, txId: '0x01' };
    transport.script('getStatus', status('succeeded', { info }));
    const { snapshot } = started(transport);
    await settle();
    expect(snapshot()).toMatchObject({ stage: 'succeeded', paid: info });
  });
});
