import { randomUUID } from 'node:crypto';
import { type Hex, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentRefusedError } from '../../../src/chains/evm/errors.ts';
import { claimNativeTransfer, type NativeTransferState, verifyNativeTransfer } from '../../../src/chains/evm/nativeTransfer.ts';
import { type Buyer, type EvmTestEnvironment, startEvmTestEnvironment } from './support/evmDevnet.ts';

describe('native coin transfers', () => {
  let env: EvmTestEnvironment;

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
  });
  afterAll(() => env?.close());

  async function pay(buyer: Buyer, to: `0x${string}`, value: bigint): Promise<Hex> {
    return buyer.wallet.sendTransaction({ account: buyer.account, chain: null, to, value });
  }

  async function untilConfirmed(hash: Hex, expected: { from: `0x${string}`; to: `0x${string}`; value: bigint }): Promise<NativeTransferState> {
    for (let tries = 0; tries < 100; tries++) {
      const state = await verifyNativeTransfer(env.client, env.network, hash, expected);
      if (state.state === 'confirmed') return state;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${hash} not confirmed`);
  }

  it('accepts a transfer of exactly the quoted value to the collector, once mined', async () => {
    const bob = env.buyer('bob');
    const value = parseEther('0.0123');
    const before = await Promise.all([env.client.getBalance({ address: env.collector }), env.client.getBalance({ address: bob.address })]);
    const hash = await pay(bob, env.collector, value);
    const expected = { from: bob.address, to: env.collector, value };

    const early = await verifyNativeTransfer(env.client, env.network, hash, expected);
    expect(['pending', 'confirmed']).toContain(early.state);
    const confirmed = await untilConfirmed(hash, expected);

    expect(confirmed).toMatchObject({ state: 'confirmed', confirmations: expect.any(Number) });
    const receipt = await env.client.getTransactionReceipt({ hash });
    const gasPaid = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(await env.client.getBalance({ address: env.collector })).toBe(before[0] + value);
    expect(await env.client.getBalance({ address: bob.address })).toBe(before[1] - value - gasPaid);
  });

  it('refuses a transfer to another address, of another value or from another sender', async () => {
    const bob = env.buyer('bob');
    const dave = env.buyer('dave');
    const value = parseEther('0.001');
    const hash = await pay(bob, dave.address, value);
    await env.client.waitForTransactionReceipt({ hash, pollingInterval: 200 });
    const refusal = (expected: Parameters<typeof verifyNativeTransfer>[3]) =>
      verifyNativeTransfer(env.client, env.network, hash, expected).catch((error: PaymentRefusedError) => error.code);

    expect(await refusal({ from: bob.address, to: env.collector, value })).toBe('recipient_mismatch');
    expect(await refusal({ from: bob.address, to: dave.address, value: value + 1n })).toBe('amount_mismatch');
    expect(await refusal({ from: env.buyer('alice').address, to: dave.address, value })).toBe('payer_mismatch');
  });

  it('reports a hash the node does not know as not found', async () => {
    const unknown = `0x${'ab'.repeat(32)}` as Hex;
    expect(await verifyNativeTransfer(env.client, env.network, unknown, { from: env.collector, to: env.collector, value: 1n })).toEqual({ state: 'not_found' });
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
    await expect(claimNativeTransfer(env.db, env.network.caip2, hash.toUpperCase().replace('0X', '0x') as Hex, winner)).resolves.toBeUndefined();
    await expect(claimNativeTransfer(env.db, 'eip155:31338', hash, second === winner ? first : second)).resolves.toBeUndefined();
  });

  it('refuses a real transfer reused for a second payment, without moving money', async () => {
    const alice = env.buyer('alice');
    const value = parseEther('0.002');
    const hash = await pay(alice, env.collector, value);
    const expected = { from: alice.address, to: env.collector, value };
    await untilConfirmed(hash, expected);
    await claimNativeTransfer(env.db, env.network.caip2, hash, 'pay_native_first');
    const balances = await Promise.all([env.client.getBalance({ address: env.collector }), env.client.getBalance({ address: alice.address })]);

    await untilConfirmed(hash, expected);
    const reuse = await claimNativeTransfer(env.db, env.network.caip2, hash, 'pay_native_second').catch((error: PaymentRefusedError) => error.code);

    expect(reuse).toBe('transfer_already_used');
    expect(await Promise.all([env.client.getBalance({ address: env.collector }), env.client.getBalance({ address: alice.address })])).toEqual(balances);
  });
});
