import { type Address, type Hex, isAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DETERMINISTIC_DEPLOYER,
  depositAddress,
  depositFactoryAddress,
  depositSalt,
} from '../../src/chains/evm/deposits/addresses.ts';
import { compileDepositContracts } from '../../src/chains/evm/deposits/compile.ts';
import {
  depositFactoryAbi,
  depositFactoryBytecode,
  depositForwarderAbi,
  depositForwarderBytecode,
} from '../../src/chains/evm/deposits/contracts.ts';
import { deployDepositFactory, hasCode } from '../../src/chains/evm/deposits/factory.ts';
import { type EvmTestEnvironment, startEvmTestEnvironment } from '../chains/evm/support/evmDevnet.ts';

describe('deposit contracts', () => {
  it('the committed bytecode and ABI are what solc 0.8.17 makes of packages/server/contracts/DepositFactory.sol now', () => {
    const fresh = compileDepositContracts();
    expect(fresh.compiler).toMatch(/^0\.8\.17\+/);
    expect(depositFactoryBytecode).toBe(fresh.factory.bytecode);
    expect(depositForwarderBytecode).toBe(fresh.forwarder.bytecode);
    expect(depositFactoryAbi).toEqual(fresh.factory.abi);
    expect(depositForwarderAbi).toEqual(fresh.forwarder.abi);
  });

  it('derives distinct addresses per payment and a factory address per collector, without a node', () => {
    const collector: Address = '0x00000000000000000000000000000000000000c0';
    const first = depositAddress(collector, 'pay_01');
    expect(isAddress(first)).toBe(true);
    expect(depositAddress(collector, 'pay_01')).toBe(first);
    expect(depositAddress(collector, 'pay_02')).not.toBe(first);
    expect(depositAddress('0x00000000000000000000000000000000000000c1', 'pay_01')).not.toBe(first);
    expect(depositFactoryAddress(collector)).not.toBe(
      depositFactoryAddress('0x00000000000000000000000000000000000000c1'),
    );
    expect(depositSalt('pay_01')).not.toBe(depositSalt('pay_02'));
  });
});

describe('deposit factory on the devnet', () => {
  let env: EvmTestEnvironment;

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
  }, 120_000);
  afterAll(() => env?.close());

  it('is deployed once by the collector through the deterministic deployer, where the service computed it, and computes the same deposit addresses', async () => {
    expect(await hasCode(env.client, DETERMINISTIC_DEPLOYER)).toBe(true);
    const factory = depositFactoryAddress(env.collector);
    expect(await hasCode(env.client, factory)).toBe(false);

    const sent = await deployDepositFactory(env.relayer, env.client, env.network.caip2);
    expect(sent).not.toBeNull();
    const { hash } = sent as { id: string; hash: Hex };
    const receipt = await env.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(env.collector.toLowerCase());
    expect(await hasCode(env.client, factory)).toBe(true);
    expect(await deployDepositFactory(env.relayer, env.client, env.network.caip2)).toBeNull();

    const collector = await env.client.readContract({
      address: factory,
      abi: depositFactoryAbi,
      functionName: 'collector',
    });
    expect(collector).toBe(env.collector);
    for (const paymentId of ['pay_01JDEPOSIT0000000000000001', 'pay_01JDEPOSIT0000000000000002', 'pay_x']) {
      const onChain = await env.client.readContract({
        address: factory,
        abi: depositFactoryAbi,
        functionName: 'computeAddress',
        args: [depositSalt(paymentId)],
      });
      expect(onChain).toBe(depositAddress(env.collector, paymentId));
    }
  });
});
