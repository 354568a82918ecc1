import { randomUUID } from 'node:crypto';
import { type Hex, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentRefusedError } from '../../../src/chains/evm/errors.ts';
import {
  claimNativeTransfer,
  type ExpectedNativeTransfer,
  type NativeTransferState,
  nativeTransferReference,
  verifyNativeTransfer,
} from '../../../src/chains/evm/nativeTransfer.ts';
import { type Buyer, type EvmTestEnvironment, startEvmTestEnvironment } from './support/evmDevnet.ts';

describe('native coin transfers', () => {
  let env: EvmTestEnvironment;

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
  });
  afterAll(() => env?.close());

  async function pay(buyer: Buyer, to: `0x${string}`, value: bigint, data?: Hex): Promise<Hex> {
    return buyer.wallet.sendTransaction({ account: buyer.account, chain: null, to, value, data });
  }

  /** An option offered a minute ago (its reference and offer time), for a transfer made now. */
  function offeredOption(): { reference: Hex; offeredAt: Date } {
    return { reference: nativeTransferReference(`opt_${randomUUID()}`), offeredAt: new Date(Date.now() - 60_000) };
  }

  async function untilConfirmed(hash: Hex, expected: ExpectedNativeTransfer): Promise<NativeTransferState> {
    for (let tries = 0; tries < 100; tries++) {
      const state = await verifyNativeTransfer(env.client, env.network, hash, expected);
      if (state.state === 'confirmed') return state;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${hash} not confirmed`);
  }

  it('derives a 32-byte reference per option, the same every time', () => {
    const reference = nativeTransferReference('opt_01JABCDEFGHJKMNPQRSTVWXYZ0');
    expect(reference).toMatch(/^0x[0-9a-f]{64}$/);
    expect(nativeTransferReference('opt_01JABCDEFGHJKMNPQRSTVWXYZ0')).toBe(reference);
    expect(nativeTransferReference('opt_01JABCDEFGHJKMNPQRSTVWXYZ1')).not.toBe(reference);
  });

  it('accepts a transfer of exactly the quoted value to the collector with the reference, once mined', async () => {
    const bob = env.buyer('bob');
    const value = parseEther('0.0123');
    const option = offeredOption();
    const before = await Promise.all([
      env.client.getBalance({ address: env.collector }),
      env.client.getBalance({ address: bob.address }),
    ]);
    const hash = await pay(bob, env.collector, value, option.reference);
    const expected = { from: bob.address, to: env.collector, value, ...option };

    const early = await verifyNativeTransfer(env.client, env.network, hash, expected);
    expect(['pending', 'confirmed']).toContain(early.state);
    const confirmed = await untilConfirmed(hash, expected);

    expect(confirmed).toMatchObject({ state: 'confirmed', confirmations: expect.any(Number) });
    const receipt = await env.client.getTransactionReceipt({ hash });
    const gasPaid = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(await env.client.getBalance({ address: env.collector })).toBe(before[0] + value);
    expect(await env.client.getBalance({ address: bob.address })).toBe(before[1] - value - gasPaid);
  });

  it('refuses a transfer to another address, of another value, from another sender or without the reference', async () => {
    const bob = env.buyer('bob');
    const dave = env.buyer('dave');
    const value = parseEther('0.001');
    const option = offeredOption();
    const hash = await pay(bob, dave.address, value, option.reference);
    await env.client.waitForTransactionReceipt({ hash, pollingInterval: 200 });
    const refusal = (expected: ExpectedNativeTransfer) =>
      verifyNativeTransfer(env.client, env.network, hash, expected).catch((error: PaymentRefusedError) => error.code);

    expect(await refusal({ from: bob.address, to: env.collector, value, ...option })).toBe('recipient_mismatch');
    expect(await refusal({ from: bob.address, to: dave.address, value: value + 1n, ...option })).toBe(
      'amount_mismatch',
    );
    expect(await refusal({ from: env.buyer('alice').address, to: dave.address, value, ...option })).toBe(
      'payer_mismatch',
    );
    expect(await refusal({ from: bob.address, to: dave.address, value, ...offeredOption() })).toBe(
      'reference_mismatch',
    );
    expect(await refusal({ from: bob.address, to: dave.address, value, ...option })).toMatchObject({
      state: expect.stringMatching(/^(pending|confirmed)$/),
    });

    const plain = await pay(bob, dave.address, value);
    await env.client.waitForTransactionReceipt({ hash: plain, pollingInterval: 200 });
    const unbound = await verifyNativeTransfer(env.client, env.network, plain, {
      from: bob.address,
      to: dave.address,
      value,
      ...option,
    }).catch((error: PaymentRefusedError) => error.code);
    expect(unbound).toBe('reference_mismatch');
  });

  it('refuses a transfer mined before its option was offered, and accepts one mined in the same second', async () => {
    const bob = env.buyer('bob');
    const value = parseEther('0.001');
    const { reference } = offeredOption();
    const hash = await pay(bob, env.collector, value, reference);
    const receipt = await env.client.waitForTransactionReceipt({ hash, pollingInterval: 200 });
    const { timestamp } = await env.client.getBlock({ blockHash: receipt.blockHash });
    const minedAtMs = Number(timestamp) * 1000;
    const check = (offeredAt: Date) =>
      verifyNativeTransfer(env.client, env.network, hash, {
        from: bob.address,
        to: env.collector,
        value,
        reference,
        offeredAt,
      }).then(
        (state) => state.state,
        (error: PaymentRefusedError) => error.code,
      );

    expect(await check(new Date(minedAtMs + 1_000))).toBe('transfer_predates_option');
    expect(['pending', 'confirmed']).toContain(await check(new Date(minedAtMs + 999)));
  });

  it('reports a hash the node does not know as not found', async () => {
    const unknown = `0x${'ab'.repeat(32)}` as Hex;
    const expected = { from: env.collector, to: env.collector, value: 1n, ...offeredOption() };
    expect(await verifyNativeTransfer(env.client, env.network, unknown, expected)).toEqual({ state: 'not_found' });
  });

  it('lets a transfer pay one payment only, even when claimed concurrently', async () => {
    const hash = `0x${randomUUID().replaceAll('-', '').padEnd(64, '0')}` as Hex;
    const first = `pay_${randomUUID()}`;
    const second = `pay_${randomUUID()}`;

    const results = await Promise.allSettled([
      claimNativeTransfer(env.db, env.network.caip2, hash, first),
      claimNativeTransfer(env.db, env.network.caip2, hash, second),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(PaymentRefusedError);
    expect((rejected.reason as PaymentRefusedError).code).toBe('transfer_already_used');

    const winner = results[0]?.status === 'fulfilled' ? first : second;
    await expect(
      claimNativeTransfer(env.db, env.network.caip2, hash.toUpperCase().replace('0X', '0x') as Hex, winner),
    ).resolves.toBeUndefined();
    await expect(
      claimNativeTransfer(env.db, 'eip155:31338', hash, second === winner ? first : second),
    ).resolves.toBeUndefined();
  });

  it('refuses a real transfer reused for a second payment, without moving money', async () => {
    const alice = env.buyer('alice');
    const value = parseEther('0.002');
    const option = offeredOption();
    const hash = await pay(alice, env.collector, value, option.reference);
    const expected = { from: alice.address, to: env.collector, value, ...option };
    await untilConfirmed(hash, expected);
    await claimNativeTransfer(env.db, env.network.caip2, hash, 'pay_native_first');
    const balances = await Promise.all([
      env.client.getBalance({ address: env.collector }),
      env.client.getBalance({ address: alice.address }),
    ]);

    await untilConfirmed(hash, expected);
    const reuse = await claimNativeTransfer(env.db, env.network.caip2, hash, 'pay_native_second').catch(
      (error: PaymentRefusedError) => error.code,
    );

    expect(reuse).toBe('transfer_already_used');
    expect(
      await Promise.all([
        env.client.getBalance({ address: env.collector }),
        env.client.getBalance({ address: alice.address }),
      ]),
    ).toEqual(balances);
  });
});
