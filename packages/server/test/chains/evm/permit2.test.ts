import { type Address, type Hex, maxUint256 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBalances, readPermit2Allowances } from '../../../src/chains/evm/balances.ts';
import { PaymentRefusedError } from '../../../src/chains/evm/errors.ts';
import {
  permit2ApprovalTransaction,
  permitTransferFromTypedData,
  readPermit2Allowance,
  relayPermitTransfer,
  type PermitTransferTypedData,
} from '../../../src/chains/evm/permit2.ts';
import { systemClock } from '../../../src/clock.ts';
import { waitForRelayedOutcome } from '../../support/chainWaits.ts';
import { type Buyer, type EvmTestEnvironment, nowSeconds, startEvmTestEnvironment } from './support/evmDevnet.ts';

describe('Permit2 signature transfers', () => {
  let env: EvmTestEnvironment;

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
  });
  afterAll(() => env?.close());

  const usdt = () => env.token('USDT');

  function permitFor(paymentId: string, amount: bigint, deadline = nowSeconds(600)): PermitTransferTypedData {
    return permitTransferFromTypedData({
      chainId: 31337,
      token: usdt().address as Address,
      amount,
      spender: env.collector,
      paymentId,
      deadline,
    });
  }

  function relay(
    paymentId: string,
    typedData: PermitTransferTypedData,
    owner: Address,
    signature: Hex,
    quote: { amount: bigint },
  ) {
    return relayPermitTransfer(env.client, env.relayer, env.network, {
      typedData,
      owner,
      signature,
      expected: { token: usdt().address as Address, amount: quote.amount, collector: env.collector, paymentId },
      clock: systemClock,
    });
  }

  async function balancesOf(buyer: Buyer) {
    const amounts = await readBalances(env.client, [buyer.address, env.collector], [usdt()]);
    return { buyer: amounts.of(buyer.address, usdt()), collector: amounts.of(env.collector, usdt()) };
  }

  async function expectRefusedWithoutMovingMoney(buyer: Buyer, attempt: () => Promise<unknown>, code: string) {
    const before = await balancesOf(buyer);
    const error = await attempt().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(PaymentRefusedError);
    expect((error as PaymentRefusedError).code).toBe(code);
    expect(await balancesOf(buyer)).toEqual(before);
  }

  it('moves exactly the quoted amount from a buyer who already approved Permit2', async () => {
    const alice = env.buyer('alice');
    expect(await readPermit2Allowance(env.client, alice.address, usdt().address as Address)).toBe(maxUint256);
    const amount = 4_200_000n;
    const before = await balancesOf(alice);
    const typedData = permitFor('pay_permit2_alice', amount);
    const signature = await alice.account.signTypedData(typedData);

    const { id } = await relay('pay_permit2_alice', typedData, alice.address, signature, { amount });
    const outcome = await waitForRelayedOutcome(env, id);

    expect(outcome.status).toBe('confirmed');
    expect(await balancesOf(alice)).toEqual({ buyer: before.buyer - amount, collector: before.collector + amount });
  });

  it('waits for the approval transaction of a buyer without an allowance, then moves exactly the quoted amount', async () => {
    const bob = env.buyer('bob');
    const allowances = await readPermit2Allowances(env.client, [bob.address], [usdt()]);
    expect(allowances.of(bob.address, usdt())).toBe(0n);
    const amount = 7_000_001n;
    const before = await balancesOf(bob);

    const approval = permit2ApprovalTransaction({ from: bob.address, token: usdt().address as Address });
    expect(approval.to).toBe(usdt().address);
    const approvalHash = await bob.wallet.sendTransaction({ ...approval, account: bob.account, chain: null });
    const typedData = permitFor('pay_permit2_bob', amount);
    const signature = await bob.account.signTypedData(typedData);

    // The permit is relayed once the approval is mined (the gateway's follower watches it for a payment).
    await env.client.waitForTransactionReceipt({ hash: approvalHash });
    const { id } = await relay('pay_permit2_bob', typedData, bob.address, signature, { amount });
    const outcome = await waitForRelayedOutcome(env, id);

    expect(outcome.status).toBe('confirmed');
    expect(await readPermit2Allowance(env.client, bob.address, usdt().address as Address)).toBe(maxUint256);
    expect(await balancesOf(bob)).toEqual({ buyer: before.buyer - amount, collector: before.collector + amount });
  });

  it('refuses a permit signed by another key', async () => {
    const alice = env.buyer('alice');
    const typedData = permitFor('pay_permit2_forged', 1_000_000n);
    const signature = await privateKeyToAccount(generatePrivateKey()).signTypedData(typedData);
    await expectRefusedWithoutMovingMoney(
      alice,
      () => relay('pay_permit2_forged', typedData, alice.address, signature, { amount: 1_000_000n }),
      'invalid_signature',
    );
  });

  it('refuses a permit for another amount, another spender or another payment', async () => {
    const alice = env.buyer('alice');
    const issued = permitFor('pay_permit2_altered', 1_000_000n);
    const cheaper = {
      ...issued,
      message: { ...issued.message, permitted: { ...issued.message.permitted, amount: 1n } },
    };
    await expectRefusedWithoutMovingMoney(
      alice,
      async () =>
        relay('pay_permit2_altered', cheaper, alice.address, await alice.account.signTypedData(cheaper), {
          amount: 1_000_000n,
        }),
      'amount_mismatch',
    );
    const elsewhere = { ...issued, message: { ...issued.message, spender: env.buyer('dave').address } };
    await expectRefusedWithoutMovingMoney(
      alice,
      async () =>
        relay('pay_permit2_altered', elsewhere, alice.address, await alice.account.signTypedData(elsewhere), {
          amount: 1_000_000n,
        }),
      'recipient_mismatch',
    );
    const otherPayment = permitFor('pay_permit2_other', 1_000_000n);
    await expectRefusedWithoutMovingMoney(
      alice,
      async () =>
        relay('pay_permit2_altered', otherPayment, alice.address, await alice.account.signTypedData(otherPayment), {
          amount: 1_000_000n,
        }),
      'not_bound_to_payment',
    );
  });

  it('refuses a permit used twice, and one past its deadline', async () => {
    const alice = env.buyer('alice');
    const typedData = permitFor('pay_permit2_twice', 1_500_000n);
    const signature = await alice.account.signTypedData(typedData);
    const { id } = await relay('pay_permit2_twice', typedData, alice.address, signature, { amount: 1_500_000n });
    expect((await waitForRelayedOutcome(env, id)).status).toBe('confirmed');
    await expectRefusedWithoutMovingMoney(
      alice,
      () => relay('pay_permit2_twice', typedData, alice.address, signature, { amount: 1_500_000n }),
      'nonce_already_used',
    );

    const late = permitFor('pay_permit2_late', 1_000_000n, nowSeconds(-5));
    await expectRefusedWithoutMovingMoney(
      alice,
      async () =>
        relay('pay_permit2_late', late, alice.address, await alice.account.signTypedData(late), { amount: 1_000_000n }),
      'authorization_expired',
    );
  });

  it('refuses a buyer with no allowance who sent no approval, and a buyer without the balance', async () => {
    const carol = env.buyer('carol');
    const typedData = permitFor('pay_permit2_carol', 1_000_000n);
    await expectRefusedWithoutMovingMoney(
      carol,
      async () =>
        relay('pay_permit2_carol', typedData, carol.address, await carol.account.signTypedData(typedData), {
          amount: 1_000_000n,
        }),
      'allowance_missing',
    );
    const dave = env.buyer('dave');
    const forDave = permitFor('pay_permit2_dave', 1_000_000n);
    await expectRefusedWithoutMovingMoney(
      dave,
      async () =>
        relay('pay_permit2_dave', forDave, dave.address, await dave.account.signTypedData(forDave), {
          amount: 1_000_000n,
        }),
      'insufficient_balance',
    );
  });
});
