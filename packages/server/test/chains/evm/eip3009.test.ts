import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBalances } from '../../../src/chains/evm/balances.ts';
import {
  readEip3009Token,
  receiveWithAuthorizationTypedData,
  relayReceiveWithAuthorization,
  type ReceiveAuthorizationTypedData,
} from '../../../src/chains/evm/eip3009.ts';
import { PaymentRefusedError } from '../../../src/chains/evm/errors.ts';
import type { TokenInfo } from '../../../src/chains/registry.ts';
import { systemClock } from '../../../src/clock.ts';
import { waitForRelayedOutcome } from '../../support/chainWaits.ts';
import { type Buyer, type EvmTestEnvironment, nowSeconds, startEvmTestEnvironment } from './support/evmDevnet.ts';
import { reportedDomainTokenBytecode, versionlessTokenBytecode } from './support/eip712Domains.ts';
import { ownedWalletAbi, ownedWalletBytecode } from './support/ownedWallet.ts';

describe('EIP-3009 receiveWithAuthorization', () => {
  let env: EvmTestEnvironment;

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
  });
  afterAll(() => env?.close());

  async function authorization(
    token: TokenInfo,
    from: Address,
    value: bigint,
    overrides: { validBefore?: bigint } = {},
  ) {
    return receiveWithAuthorizationTypedData({
      token: await readEip3009Token(env.client, token.address as Address),
      from,
      to: env.collector,
      value,
      validAfter: 0n,
      validBefore: overrides.validBefore ?? nowSeconds(600),
    });
  }

  async function relay(
    token: TokenInfo,
    typedData: ReceiveAuthorizationTypedData,
    signature: Hex,
    quote: { value: bigint; from?: Address },
  ) {
    return relayReceiveWithAuthorization(env.client, env.relayer, {
      chain: env.network.caip2,
      typedData,
      signature,
      expected: { token: token.address as Address, collector: env.collector, ...quote },
      clock: systemClock,
      paymentId: 'pay_eip3009_test',
    });
  }

  function balancesOf(buyer: Buyer, token: TokenInfo) {
    return readBalances(env.client, [buyer.address, env.collector], [token]).then((amounts) => ({
      buyer: amounts.of(buyer.address, token),
      collector: amounts.of(env.collector, token),
    }));
  }

  async function expectRefusedWithoutMovingMoney(
    buyer: Buyer,
    token: TokenInfo,
    attempt: () => Promise<unknown>,
    code: string,
  ) {
    const before = await balancesOf(buyer, token);
    const error = await attempt().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(PaymentRefusedError);
    expect((error as PaymentRefusedError).code).toBe(code);
    expect(await balancesOf(buyer, token)).toEqual(before);
  }

  it.each(['USDC', 'EURC'] as const)(
    'moves exactly the quoted amount of %s from the buyer to the collector',
    async (symbol) => {
      const token = env.token(symbol);
      const alice = env.buyer('alice');
      const value = 12_345_678n;
      const before = await balancesOf(alice, token);
      const typedData = await authorization(token, alice.address, value);
      expect(typedData.domain).toMatchObject({ version: '2', chainId: 31337 });
      const signature = await alice.account.signTypedData(typedData);

      const { id } = await relay(token, typedData, signature, { value, from: alice.address });
      const outcome = await waitForRelayedOutcome(env, id);

      expect(outcome.status).toBe('confirmed');
      expect(outcome.receipt?.status).toBe('success');
      expect(await balancesOf(alice, token)).toEqual({
        buyer: before.buyer - value,
        collector: before.collector + value,
      });
    },
  );

  it('refuses a signature made by another key', async () => {
    const token = env.token('USDC');
    const bob = env.buyer('bob');
    const typedData = await authorization(token, bob.address, 1_000_000n);
    const signature = await privateKeyToAccount(generatePrivateKey()).signTypedData(typedData);
    await expectRefusedWithoutMovingMoney(
      bob,
      token,
      () => relay(token, typedData, signature, { value: 1_000_000n }),
      'invalid_signature',
    );
  });

  it('refuses an authorisation whose amount differs from the quote', async () => {
    const token = env.token('USDC');
    const bob = env.buyer('bob');
    const typedData = await authorization(token, bob.address, 1n);
    const signature = await bob.account.signTypedData(typedData);
    await expectRefusedWithoutMovingMoney(
      bob,
      token,
      () => relay(token, typedData, signature, { value: 1_000_000n }),
      'amount_mismatch',
    );
  });

  it('refuses a signature over an altered amount when checked against the issued authorisation', async () => {
    const token = env.token('USDC');
    const bob = env.buyer('bob');
    const issued = await authorization(token, bob.address, 1_000_000n);
    const signature = await bob.account.signTypedData({ ...issued, message: { ...issued.message, value: 1n } });
    await expectRefusedWithoutMovingMoney(
      bob,
      token,
      () => relay(token, issued, signature, { value: 1_000_000n }),
      'invalid_signature',
    );
  });

  it('refuses an authorisation paying another recipient', async () => {
    const token = env.token('USDC');
    const bob = env.buyer('bob');
    const issued = await authorization(token, bob.address, 1_000_000n);
    const elsewhere = { ...issued, message: { ...issued.message, to: env.buyer('dave').address } };
    const signature = await bob.account.signTypedData(elsewhere);
    await expectRefusedWithoutMovingMoney(
      bob,
      token,
      () => relay(token, elsewhere, signature, { value: 1_000_000n }),
      'recipient_mismatch',
    );
  });

  it('reads the domain a token signs in: its name and version, EIP-5267, or the version its source fixes', async () => {
    const deploy = async (bytecode: Hex) => {
      const { account, wallet } = env.buyer('carol');
      const hash = await wallet.deployContract({ abi: [], bytecode, account, chain: null });
      const { contractAddress } = await env.client.waitForTransactionReceipt({ hash, pollingInterval: 200 });
      return contractAddress as Address;
    };
    const [reported, versionless] = [await deploy(reportedDomainTokenBytecode), await deploy(versionlessTokenBytecode)];
    const chainId = env.network.caip2.split(':')[1];
    const usdc = env.token('USDC').address as Address;

    expect(await readEip3009Token(env.client, usdc)).toEqual({
      address: usdc,
      name: 'USD Coin',
      version: '2',
      chainId: Number(chainId),
    });
    // EIP-5267's domain wins over `name()`, which may differ from it.
    expect(await readEip3009Token(env.client, reported)).toMatchObject({ name: 'Domain Name', version: '7' });
    expect(await readEip3009Token(env.client, versionless, '1')).toMatchObject({ name: 'Versionless', version: '1' });
    // Without the version its source fixes, a token with no `version()` cannot be signed for.
    await expect(readEip3009Token(env.client, versionless)).rejects.toThrow(/version/);
  });

  it('refuses a replayed nonce', async () => {
    const token = env.token('EURC');
    const bob = env.buyer('bob');
    const typedData = await authorization(token, bob.address, 2_000_000n);
    const signature = await bob.account.signTypedData(typedData);
    const { id } = await relay(token, typedData, signature, { value: 2_000_000n });
    expect((await waitForRelayedOutcome(env, id)).status).toBe('confirmed');

    await expectRefusedWithoutMovingMoney(
      bob,
      token,
      () => relay(token, typedData, signature, { value: 2_000_000n }),
      'nonce_already_used',
    );
  });

  it('refuses an authorisation past its deadline', async () => {
    const token = env.token('USDC');
    const bob = env.buyer('bob');
    const typedData = await authorization(token, bob.address, 1_000_000n, { validBefore: nowSeconds(-5) });
    const signature = await bob.account.signTypedData(typedData);
    await expectRefusedWithoutMovingMoney(
      bob,
      token,
      () => relay(token, typedData, signature, { value: 1_000_000n }),
      'authorization_expired',
    );
  });

  it('refuses a payer without the balance', async () => {
    const token = env.token('USDC');
    const dave = env.buyer('dave');
    const typedData = await authorization(token, dave.address, 1_000_000n);
    const signature = await dave.account.signTypedData(typedData);
    await expectRefusedWithoutMovingMoney(
      dave,
      token,
      () => relay(token, typedData, signature, { value: 1_000_000n }),
      'insufficient_balance',
    );
  });
  it('accepts an authorisation from a contract wallet (ERC-1271) and refuses one its owner did not sign', async () => {
    const token = env.token('USDC');
    const owner = env.buyer('alice');
    const deployment = await owner.wallet.deployContract({
      abi: ownedWalletAbi,
      bytecode: ownedWalletBytecode,
      args: [owner.address],
      account: owner.account,
      chain: null,
    });
    const { contractAddress } = await env.client.waitForTransactionReceipt({ hash: deployment, pollingInterval: 200 });
    const walletAddress = contractAddress as Address;
    await env.devnet.fund({ evm: [walletAddress] });
    const wallet: Buyer = { ...owner, address: walletAddress };

    const forged = await authorization(token, walletAddress, 1_000_000n);
    const forgedSignature = await env.buyer('bob').account.signTypedData(forged);
    await expectRefusedWithoutMovingMoney(
      wallet,
      token,
      () => relay(token, forged, forgedSignature, { value: 1_000_000n }),
      'invalid_signature',
    );

    const value = 3_000_000n;
    const before = await balancesOf(wallet, token);
    const typedData = await authorization(token, walletAddress, value);
    const { id } = await relay(token, typedData, await owner.account.signTypedData(typedData), {
      value,
      from: walletAddress,
    });
    expect((await waitForRelayedOutcome(env, id)).status).toBe('confirmed');
    expect(await balancesOf(wallet, token)).toEqual({
      buyer: before.buyer - value,
      collector: before.collector + value,
    });
  });
});
