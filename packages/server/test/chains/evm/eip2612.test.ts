import { type Address, encodeFunctionData, type Hex, parseAbi, parseSignature } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBalances } from '../../../src/chains/evm/balances.ts';
import {
  type PermitTypedData,
  permitTypedData,
  readEip2612Domain,
  readPermitNonce,
  relayPermitPull,
  verifyPermit,
} from '../../../src/chains/evm/eip2612.ts';
import { PaymentRefusedError } from '../../../src/chains/evm/errors.ts';
import { compilePermitPuller } from '../../../src/chains/evm/permitPuller/compile.ts';
import { permitPullerAbi, permitPullerBytecode } from '../../../src/chains/evm/permitPuller/contracts.ts';
import {
  deployPermitPuller,
  PERMIT_PULLER_DEPLOYMENT_PURPOSE,
  permitPullerAddress,
  permitPullerDeployed,
} from '../../../src/chains/evm/permitPullerDeployment.ts';
import type { Clock } from '../../../src/clock.ts';
import { systemClock } from '../../../src/clock.ts';
import { waitForRelayedOutcome } from '../../support/chainWaits.ts';
import { type Buyer, type EvmTestEnvironment, nowSeconds, startEvmTestEnvironment } from './support/evmDevnet.ts';

const tokenAbi = parseAbi([
  'function allowance(address owner, address spender) view returns (uint256)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
]);

describe('the permit puller contract', () => {
  it('the committed bytecode and ABI are what solc 0.8.30 makes of packages/server/contracts/PermitPuller.sol now', () => {
    const fresh = compilePermitPuller();
    expect(fresh.compiler).toMatch(/^0\.8\.30\+/);
    expect(permitPullerBytecode).toBe(fresh.bytecode);
    expect(permitPullerAbi).toEqual(fresh.abi);
    // Paris bytecode, without PUSH0, deploys on every EVM network.
    expect(fresh.bytecode).not.toMatch(/^0x(..)*5f/);
  });

  it('has one address per collector, the same on every network, derived without a node', () => {
    const collector: Address = '0x00000000000000000000000000000000000000c0';
    expect(permitPullerAddress(collector)).toBe(permitPullerAddress(collector));
    expect(permitPullerAddress(collector)).not.toBe(permitPullerAddress('0x00000000000000000000000000000000000000c1'));
  });
});

describe('EIP-2612 permits pulled through the collector’s puller', () => {
  let env: EvmTestEnvironment;
  const puller = () => permitPullerAddress(env.collector);

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
    // Deployed once, through the relayer's journal, the first time a permit pays on the network.
    expect(await permitPullerDeployed(env.client, env.collector)).toBe(false);
    await deployPermitPuller(env.db, env.relayer, env.client, env.network.caip2);
    await deployPermitPuller(env.db, env.relayer, env.client, env.network.caip2);
    const journaled = await env.db
      .selectFrom('evm_transactions')
      .select(['id', 'payment_id'])
      .where('chain', '=', env.network.caip2)
      .where('purpose', '=', PERMIT_PULLER_DEPLOYMENT_PURPOSE)
      .where('from_address', '=', env.collector.toLowerCase())
      .execute();
    expect(journaled).toHaveLength(1);
    expect((await waitForRelayedOutcome(env, journaled[0]!.id)).status).toBe('confirmed');
    expect(await permitPullerDeployed(env.client, env.collector)).toBe(true);
  });
  afterAll(() => env?.close());

  const usds = () => env.token('USDS');

  async function permitOf(buyer: Buyer, value: bigint, overrides: Partial<PermitTypedData['message']> = {}) {
    const token = usds().address as Address;
    return permitTypedData(await readEip2612Domain(env.client, token), {
      owner: buyer.address,
      spender: puller(),
      value,
      nonce: await readPermitNonce(env.client, token, buyer.address),
      deadline: nowSeconds(600),
      ...overrides,
    });
  }

  function expected(buyer: Buyer, value: bigint) {
    return { token: usds().address as Address, owner: buyer.address, value, collector: env.collector };
  }

  function check(typedData: PermitTypedData, signature: Hex, buyer: Buyer, value: bigint, clock: Clock = systemClock) {
    return verifyPermit(env.client, {
      typedData,
      signature,
      expected: expected(buyer, value),
      clock,
      pullerDeployed: true,
    });
  }

  function relay(typedData: PermitTypedData, signature: Hex, buyer: Buyer, value: bigint) {
    return relayPermitPull(env.client, env.relayer, {
      chain: env.network.caip2,
      typedData,
      signature,
      expected: expected(buyer, value),
      clock: systemClock,
      paymentId: 'pay_eip2612_test',
    });
  }

  function balancesOf(buyer: Buyer) {
    return readBalances(env.client, [buyer.address, env.collector], [usds()]).then((amounts) => ({
      buyer: amounts.of(buyer.address, usds()),
      collector: amounts.of(env.collector, usds()),
    }));
  }

  function allowanceOf(buyer: Buyer): Promise<bigint> {
    return env.client.readContract({
      address: usds().address as Address,
      abi: tokenAbi,
      functionName: 'allowance',
      args: [buyer.address, puller()],
    });
  }

  async function refusal(attempt: Promise<unknown>): Promise<string> {
    const error = await attempt.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(PaymentRefusedError);
    return (error as PaymentRefusedError).code;
  }

  it('pulls exactly the permitted amount into the collector in one transaction, leaving no allowance', async () => {
    const erin = env.buyer('erin');
    const value = 12n * 10n ** 18n + 345n;
    const before = await balancesOf(erin);
    const typedData = await permitOf(erin, value);
    const signature = await erin.account.signTypedData(typedData);
    const gas = await check(typedData, signature, erin, value);
    expect(gas).toBeGreaterThan(21_000n);

    const { id } = await relay(typedData, signature, erin, value);
    expect((await waitForRelayedOutcome(env, id)).status).toBe('confirmed');
    expect(await balancesOf(erin)).toEqual({ buyer: before.buyer - value, collector: before.collector + value });
    expect(await allowanceOf(erin)).toBe(0n);
    // Erin holds no ether: the collector paid the gas.
    expect(await env.client.getBalance({ address: erin.address })).toBe(0n);
  });

  it('pays all the same when someone else submits the permit first, and the signature then pays nothing more', async () => {
    const bob = env.buyer('bob');
    const value = 5n * 10n ** 18n;
    const typedData = await permitOf(bob, value);
    const signature = await bob.account.signTypedData(typedData);
    // A stranger with gas front-runs the permit: the allowance is set, the nonce spent.
    const stranger = privateKeyToAccount(generatePrivateKey());
    await env.devnet.fund({ evm: [stranger.address] });
    const { v, r, s } = parseSignature(signature);
    const { message } = typedData;
    const frontRun = await env.client.sendRawTransaction({
      serializedTransaction: await stranger.signTransaction({
        chainId: env.client.chain!.id,
        type: 'eip1559',
        nonce: await env.client.getTransactionCount({ address: stranger.address }),
        to: usds().address as Address,
        data: encodeFunctionData({
          abi: tokenAbi,
          functionName: 'permit',
          args: [message.owner, message.spender, message.value, message.deadline, Number(v), r, s],
        }),
        gas: 200_000n,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      }),
    });
    expect((await env.client.waitForTransactionReceipt({ hash: frontRun })).status).toBe('success');
    expect(await allowanceOf(bob)).toBe(value);

    const before = await balancesOf(bob);
    await check(typedData, signature, bob, value);
    const { id } = await relay(typedData, signature, bob, value);
    expect((await waitForRelayedOutcome(env, id)).status).toBe('confirmed');
    expect(await balancesOf(bob)).toEqual({ buyer: before.buyer - value, collector: before.collector + value });
    expect(await allowanceOf(bob)).toBe(0n);
    // Replayed, the spent permit sets no allowance again: refused before anything is sent.
    expect(await refusal(check(typedData, signature, bob, value))).toBe('nonce_already_used');
    expect(await refusal(relay(typedData, signature, bob, value))).toBe('nonce_already_used');
  });

  it('refuses a signature by anyone but the owner, even where an allowance left over would pay', async () => {
    const alice = env.buyer('alice');
    const value = 10n ** 18n;
    // An allowance to the puller that alice's own permit left (submitted by someone, never pulled).
    const own = await permitOf(alice, value);
    const { v, r, s } = parseSignature(await alice.account.signTypedData(own));
    const hash = await alice.wallet.writeContract({
      account: alice.account,
      chain: env.client.chain,
      address: usds().address as Address,
      abi: tokenAbi,
      functionName: 'permit',
      args: [alice.address, puller(), value, own.message.deadline, Number(v), r, s],
    });
    expect((await env.client.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await allowanceOf(alice)).toBe(value);

    // Someone asks for a permit of alice's tokens and signs it with another key: the puller would let the failed
    // permit through and pull on the allowance, so the signature must be refused before that.
    const typedData = await permitOf(alice, value);
    const forged = await privateKeyToAccount(generatePrivateKey()).signTypedData(typedData);
    const before = await balancesOf(alice);
    expect(await refusal(check(typedData, forged, alice, value))).toBe('invalid_signature');
    expect(await refusal(relay(typedData, forged, alice, value))).toBe('invalid_signature');
    expect(await refusal(check(typedData, '0x1234', alice, value))).toBe('invalid_signature');
    expect(await balancesOf(alice)).toEqual(before);
  });

  it('refuses a permit for another spender, another amount, another owner or past its deadline', async () => {
    const bob = env.buyer('bob');
    const value = 2n * 10n ** 18n;
    const toCollector = await permitOf(bob, value, { spender: env.collector });
    expect(await refusal(check(toCollector, await bob.account.signTypedData(toCollector), bob, value))).toBe(
      'recipient_mismatch',
    );
    const issued = await permitOf(bob, value);
    const signature = await bob.account.signTypedData(issued);
    expect(await refusal(check(issued, signature, bob, value + 1n))).toBe('amount_mismatch');
    expect(await refusal(check(issued, signature, env.buyer('alice'), value))).toBe('payer_mismatch');
    // Signed over a smaller amount than the option issued.
    const altered = await bob.account.signTypedData({ ...issued, message: { ...issued.message, value: 1n } });
    expect(await refusal(check(issued, altered, bob, value))).toBe('invalid_signature');
    const later = { now: () => new Date(Number(issued.message.deadline) * 1000) };
    expect(await refusal(check(issued, signature, bob, value, later))).toBe('authorization_expired');
  });

  it('refuses a pull the balance does not cover, nothing sent', async () => {
    const dave = env.buyer('dave');
    const typedData = await permitOf(dave, 1n);
    const signature = await dave.account.signTypedData(typedData);
    expect(await refusal(check(typedData, signature, dave, 1n))).toBe('insufficient_balance');
    expect(await refusal(relay(typedData, signature, dave, 1n))).toBe('insufficient_balance');
  });

  it('lets no one but the collector call the puller, so a permit naming it pays the collector only', async () => {
    const erin = env.buyer('erin');
    const value = 10n ** 18n;
    const typedData = await permitOf(erin, value);
    const { v, r, s } = parseSignature(await erin.account.signTypedData(typedData));
    const stranger = privateKeyToAccount(generatePrivateKey());
    await expect(
      env.client.simulateContract({
        account: stranger,
        address: puller(),
        abi: permitPullerAbi,
        functionName: 'pull',
        args: [usds().address as Address, erin.address, value, typedData.message.deadline, Number(v), r, s],
      }),
    ).rejects.toThrow(/caller is not the collector/);
  });
});
