import { getBase64Encoder, getTransactionDecoder } from '@solana/kit';
import {
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  http,
  maxUint256,
  parseEther,
  recoverTypedDataAddress,
  verifyMessage,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentOption, PaymentStatus, WalletRpcAction } from '../src/gatewayTypes.ts';
import {
  evmSignerFromAccount,
  executeOptionActions,
  GatewayClient,
  GatewayError,
  InvalidActionError,
  MissingSignerError,
  TransactionRevertedError,
  payWithOption,
  solanaSignerFromKeyPair,
  UnknownChainError,
  UnsupportedActionError,
  type EvmSigner,
  type SolanaSigner,
} from '../src/index.ts';
import { type DevnetGateway, startDevnetGateway } from './support/devnetGateway.ts';
import { json, startScriptedServer } from './support/scriptedServer.ts';

let gw: DevnetGateway;

beforeAll(async () => {
  gw = await startDevnetGateway();
}, 180_000);

afterAll(async () => {
  await gw?.close();
});

const evmAccount = (name: string) => `${gw.evmChain}:${gw.buyer(name).evmAddress}`;
const solanaAccount = (name: string) => `${gw.solanaChain}:${gw.buyer(name).solanaAddress}`;
const evmSigner = (name: string) =>
  evmSignerFromAccount(privateKeyToAccount(gw.buyer(name).evmPrivateKey), { rpcUrls: gw.rpcUrls });
const solanaSigner = (name: string) => solanaSignerFromKeyPair(gw.buyer(name).solanaSecretKey);

async function optionFor(paymentId: string, account: string, symbol: string): Promise<PaymentOption> {
  const { options } = await gw.client.getOptions(paymentId, { accounts: [account] });
  const option = options.find((candidate) => candidate.amount.display?.assetSymbol === symbol);
  if (!option) throw new Error(`no ${symbol} option for ${account}: ${JSON.stringify(options)}`);
  return option;
}

/** Signers that record which namespace ran each request, around real signers. */
function recording(evm: EvmSigner, solana: SolanaSigner, calls: string[]) {
  return {
    eip155: {
      request: (args: Parameters<EvmSigner['request']>[0]) => {
        calls.push(`eip155:${args.method}`);
        return evm.request(args);
      },
    },
    solana: {
      signTransaction: (tx: string) => {
        calls.push('solana:signTransaction');
        return solana.signTransaction(tx);
      },
    },
  };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

/** Confirms results straight through the client, then follows the status to its end. */
async function confirmUntilFinal(
  paymentId: string,
  optionId: string,
  results: { type: 'walletRpc'; data: string[] }[],
): Promise<PaymentStatus> {
  let status = await gw.client.confirm(paymentId, { optionId, results }, { maxPollMs: 25_000 });
  while (!status.isFinal) status = await gw.client.getStatus(paymentId, { maxPollMs: 25_000 });
  return status;
}

describe('payWithOption on the devnet', () => {
  it('pays an EIP-3009 USDC option to succeeded, with the transaction on chain and in the merchant list', async () => {
    const { paymentId } = await gw.newPayment();
    const option = await optionFor(paymentId, evmAccount('alice'), 'USDC');
    expect(option.actions.map((action) => action.type === 'walletRpc' && action.data.method)).toEqual([
      'eth_signTypedData_v4',
    ]);
    const seen: string[] = [];

    const paid = await payWithOption({
      client: gw.client,
      paymentId,
      option,
      signers: { eip155: evmSigner('alice') },
      onStatus: (status) => seen.push(status.status),
    });

    expect(paid).toMatchObject({ status: 'succeeded', info: { optionAmount: { value: '10000000' } } });
    expect(paid.info?.txId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(seen.at(-1)).toBe('succeeded');
    const receipt = await createPublicClient({ transport: http(gw.rpcUrls[gw.evmChain]) }).getTransactionReceipt({
      hash: paid.info!.txId as `0x${string}`,
    });
    expect(receipt.status).toBe('success');
    expect(await gw.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      buyer: { accountCaip10: evmAccount('alice'), accountProviderName: 'Wallet SDK test' },
      tokenAmount: { value: '10000000', display: { assetSymbol: 'USDC' } },
      transaction: { hash: paid.info!.txId },
    });
  });

  it('pays a Solana USDC option: resolves the build action through fetch and signs the unwrapped transaction', async () => {
    const { paymentId } = await gw.newPayment();
    const option = await optionFor(paymentId, solanaAccount('erin'), 'USDC');
    expect(option.actions).toEqual([{ type: 'build', data: { data: expect.any(String) } }]);
    const calls: string[] = [];

    const paid = await payWithOption({
      client: gw.client,
      paymentId,
      option,
      signers: recording(evmSigner('erin'), solanaSigner('erin'), calls),
    });

    expect(calls).toEqual(['solana:signTransaction']);
    expect(paid).toMatchObject({
      status: 'succeeded',
      info: { optionAmount: { value: '10000000' }, txId: expect.any(String) },
    });
    expect(await gw.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      buyer: { accountCaip10: solanaAccount('erin') },
      transaction: { hash: paid.info!.txId },
    });
  });

  it('pays a Permit2 option whose allowance is short: the approval is sent and mined, then the permit signed', async () => {
    const { paymentId } = await gw.newPayment();
    const option = await optionFor(paymentId, evmAccount('carol'), 'USDT');
    expect(option.actions.map((action) => action.type === 'walletRpc' && action.data.method)).toEqual([
      'eth_sendTransaction',
      'eth_signTypedData_v4',
    ]);
    const calls: string[] = [];

    const paid = await payWithOption({
      client: gw.client,
      paymentId,
      option,
      signers: recording(evmSigner('carol'), solanaSigner('alice'), calls),
    });

    expect(calls).toEqual(['eip155:eth_sendTransaction', 'eip155:eth_signTypedData_v4']);
    expect(paid).toMatchObject({ status: 'succeeded', info: { txId: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
    expect(await gw.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      buyer: { accountCaip10: evmAccount('carol') },
      tokenAmount: { display: { assetSymbol: 'USDT' } },
    });
  });

  it('pays a Permit2 option with one signature when the allowance is there already', async () => {
    const { paymentId } = await gw.newPayment();
    const option = await optionFor(paymentId, evmAccount('alice'), 'USDT');
    expect(option.actions.map((action) => action.type === 'walletRpc' && action.data.method)).toEqual([
      'eth_signTypedData_v4',
    ]);
    const paid = await payWithOption({ client: gw.client, paymentId, option, signers: { eip155: evmSigner('alice') } });
    expect(paid).toMatchObject({ status: 'succeeded', info: { optionAmount: { value: '10000000' } } });
  });

  it("pays a native coin option with a transaction sent from the buyer, carrying the option's reference as its data", async () => {
    const { paymentId } = await gw.newPayment();
    const option = await optionFor(paymentId, evmAccount('alice'), 'ETH');
    expect(option.actions.map((action) => action.type === 'walletRpc' && action.data.method)).toEqual([
      'eth_sendTransaction',
    ]);
    const [request] = JSON.parse((option.actions[0] as WalletRpcAction).data.params) as [{ data: string }];
    expect(request.data).toMatch(/^0x[0-9a-f]{64}$/);
    const paid = await payWithOption({ client: gw.client, paymentId, option, signers: { eip155: evmSigner('alice') } });
    expect(paid).toMatchObject({ status: 'succeeded', info: { optionAmount: { value: option.amount.value } } });
    const reader = createPublicClient({ transport: http(gw.rpcUrls[gw.evmChain]) });
    const transaction = await reader.getTransaction({ hash: paid.info!.txId as `0x${string}` });
    expect([transaction.from.toLowerCase(), transaction.value, transaction.input]).toEqual([
      gw.buyer('alice').evmAddress.toLowerCase(),
      BigInt(option.amount.value),
      request.data,
    ]);
  });

  it('executes a mixed option (an EVM action, then a Solana build) in order, each result usable on its own payment', async () => {
    const [evmPayment, solanaPayment] = await Promise.all([gw.newPayment(), gw.newPayment()]);
    const evmOption = await optionFor(evmPayment.paymentId, evmAccount('bob'), 'USDC');
    const solanaOption = await optionFor(solanaPayment.paymentId, solanaAccount('bob'), 'USDC');
    // The service offers no mixed option; this one joins two real options' actions. Its build action names the
    // Solana option, so the fetch is made for that option.
    const mixed = { id: solanaOption.id, actions: [...evmOption.actions, ...solanaOption.actions] };
    const calls: string[] = [];

    const results = await executeOptionActions({
      client: gw.client,
      paymentId: solanaPayment.paymentId,
      option: mixed,
      signers: recording(evmSigner('bob'), solanaSigner('bob'), calls),
    });

    expect(calls).toEqual(['eip155:eth_signTypedData_v4', 'solana:signTransaction']);
    expect(results).toHaveLength(2);
    expect(results.map((result) => result.data.length)).toEqual([1, 1]);
    const evmAction = evmOption.actions[0] as WalletRpcAction;
    const typedData = JSON.parse(JSON.parse(evmAction.data.params)[1]);
    expect(await recoverTypedDataAddress({ ...typedData, signature: results[0]!.data[0] as `0x${string}` })).toBe(
      gw.buyer('bob').evmAddress,
    );

    const [evmPaid, solanaPaid] = await Promise.all([
      confirmUntilFinal(evmPayment.paymentId, evmOption.id, [results[0]!]),
      confirmUntilFinal(solanaPayment.paymentId, solanaOption.id, [results[1]!]),
    ]);
    expect([evmPaid.status, solanaPaid.status]).toEqual(['succeeded', 'succeeded']);
  });

  it('keeps in order the several actions one build action yields, in one result aligned with the build', async () => {
    // The service's builds yield one action each; a gateway answering fetch with two real actions (an EIP-3009
    // signature request and a Solana transaction, each for its own real payment) stands in for a richer build.
    const [evmPayment, solanaPayment] = await Promise.all([gw.newPayment(), gw.newPayment()]);
    const evmOption = await optionFor(evmPayment.paymentId, evmAccount('alice'), 'USDC');
    const solanaOption = await optionFor(solanaPayment.paymentId, solanaAccount('alice'), 'USDC');
    const build = solanaOption.actions[0]!;
    if (build.type !== 'build') throw new Error('expected a build action');
    const { actions: solanaActions } = await gw.client.fetchActions(solanaPayment.paymentId, {
      optionId: solanaOption.id,
      data: build.data.data,
    });
    const yielded = [evmOption.actions[0], solanaActions[0]];
    const succeeded = { status: 'succeeded', isFinal: true, info: { optionAmount: evmOption.amount, txId: '0xabc' } };
    const gateway = await startScriptedServer([json(200, { actions: yielded }), json(200, succeeded)]);
    try {
      const calls: string[] = [];
      const paid = await payWithOption({
        client: new GatewayClient({ baseUrl: gateway.baseUrl, auth: gw.app }),
        paymentId: solanaPayment.paymentId,
        option: { id: 'opt_built', actions: [{ type: 'build', data: { data: 'several' } }] },
        signers: recording(evmSigner('alice'), solanaSigner('alice'), calls),
      });
      expect(paid.status).toBe('succeeded');
      expect(calls).toEqual(['eip155:eth_signTypedData_v4', 'solana:signTransaction']);
      expect(JSON.parse(gateway.requests[0]!.body)).toEqual({ optionId: 'opt_built', data: 'several' });
      const confirm = JSON.parse(gateway.requests[1]!.body);
      expect(confirm.optionId).toBe('opt_built');
      expect(confirm.results).toHaveLength(1);
      const [signature, signedTransaction] = confirm.results[0].data as string[];

      // Both values are the real thing, in the order of the actions: each pays its own payment.
      const [evmPaid, solanaPaid] = await Promise.all([
        confirmUntilFinal(evmPayment.paymentId, evmOption.id, [{ type: 'walletRpc', data: [signature!] }]),
        confirmUntilFinal(solanaPayment.paymentId, solanaOption.id, [
          { type: 'walletRpc', data: [signedTransaction!] },
        ]),
      ]);
      expect([evmPaid.status, solanaPaid.status]).toEqual(['succeeded', 'succeeded']);
    } finally {
      await gateway.close();
    }
  });

  it('sends collectedData with the confirm when the option asks for buyer data', async () => {
    const { paymentId } = await gw.newPaymentNeedingData();
    const option = await optionFor(paymentId, evmAccount('erin'), 'USDC');
    expect(option.collectData).toMatchObject({ url: expect.stringContaining('/collect/') });
    const signers = { eip155: evmSigner('erin') };

    const without = await caught(payWithOption({ client: gw.client, paymentId, option, signers }));
    expect(without).toBeInstanceOf(GatewayError);
    expect(without).toMatchObject({ status: 400, code: 'params_validation', issues: [{ field: 'collectedData' }] });
    expect((await gw.client.getStatus(paymentId)).status).toBe('requires_action');

    const collectedData = {
      fields: [
        { id: 'fullName', value: 'Ada Lovelace' },
        { id: 'dateOfBirth', value: '1990-12-10' },
        { id: 'placeOfBirth', value: 'Marylebone, London' },
        { id: 'termsAccepted', value: true },
      ],
    };
    const paid = await payWithOption({ client: gw.client, paymentId, option, signers, collectedData });
    expect(paid.status).toBe('succeeded');
  });

  it('raises on a missing signer instead of skipping the action, leaving the payment payable', async () => {
    const { paymentId } = await gw.newPayment();
    const evmOption = await optionFor(paymentId, evmAccount('alice'), 'USDC');
    const solanaOption = await optionFor(paymentId, solanaAccount('alice'), 'USDC');

    const noEvm = await caught(
      payWithOption({ client: gw.client, paymentId, option: evmOption, signers: { solana: solanaSigner('alice') } }),
    );
    expect(noEvm).toBeInstanceOf(MissingSignerError);
    expect(noEvm).toMatchObject({ code: 'missing_signer', namespace: 'eip155' });

    // The build is resolved first; its Solana action then finds no signer.
    const noSolana = await caught(
      payWithOption({ client: gw.client, paymentId, option: solanaOption, signers: { eip155: evmSigner('alice') } }),
    );
    expect(noSolana).toBeInstanceOf(MissingSignerError);
    expect((noSolana as Error).message).toContain('solana_signTransaction');

    expect(await gw.client.getStatus(paymentId)).toMatchObject({ status: 'requires_action', isFinal: false });
  });

  it('raises on an unknown method or namespace before signing anything, leaving the payment payable', async () => {
    const { paymentId } = await gw.newPayment();
    const option = await optionFor(paymentId, evmAccount('alice'), 'USDC');
    const calls: string[] = [];
    const signers = recording(evmSigner('alice'), solanaSigner('alice'), calls);
    const extra = (chain_id: string, method: string): WalletRpcAction => ({
      type: 'walletRpc',
      data: { chain_id, method, params: '[]' },
    });

    for (const [action, method] of [
      [extra(gw.evmChain, 'eth_sign'), 'eth_sign'],
      [extra(gw.solanaChain, 'solana_signAndSendTransaction'), 'solana_signAndSendTransaction'],
      [extra('cosmos:cosmoshub-4', 'cosmos_signDirect'), 'cosmos_signDirect'],
    ] as const) {
      const error = await caught(
        payWithOption({
          client: gw.client,
          paymentId,
          option: { id: option.id, actions: [...option.actions, action] },
          signers,
        }),
      );
      expect(error).toBeInstanceOf(UnsupportedActionError);
      expect(error).toMatchObject({ code: 'unsupported_action', method });
    }
    const unknownType = { type: 'signMessage', data: { message: 'hi' } } as unknown as WalletRpcAction;
    const typeError = await caught(
      payWithOption({
        client: gw.client,
        paymentId,
        option: { id: option.id, actions: [...option.actions, unknownType] },
        signers,
      }),
    );
    expect(typeError).toBeInstanceOf(UnsupportedActionError);
    expect((typeError as Error).message).toBe('Cannot execute an action of type signMessage: unknown action type');
    expect(calls).toEqual([]);
    expect(await gw.client.getStatus(paymentId)).toMatchObject({ status: 'requires_action' });
  });
});

describe('evmSignerFromAccount on the devnet', () => {
  it('sends a transaction and returns its hash only once it is mined', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const signer = evmSigner('bob');
    const hash = await signer.request({
      chainId: gw.evmChain,
      method: 'eth_sendTransaction',
      params: [{ from: gw.buyer('bob').evmAddress, to: recipient, value: `0x${parseEther('0.5').toString(16)}` }],
    });
    const reader = createPublicClient({ transport: http(gw.rpcUrls[gw.evmChain]) });
    // No waiting here: the receipt must already exist.
    expect((await reader.getTransactionReceipt({ hash: hash as `0x${string}` })).status).toBe('success');
    expect(await reader.getBalance({ address: recipient })).toBe(parseEther('0.5'));
  });

  it('sends a Permit2 approval (the first action of an allowance option) and reports a reverted transaction', async () => {
    // The second chain: on the first one carol's allowance is the Permit2 payment test's.
    const chain = gw.devnet.manifest.evm[1]!;
    const usdt = chain.tokens.find((token) => token.symbol === 'USDT')!.address as `0x${string}`;
    const carol = gw.buyer('carol').evmAddress as `0x${string}`;
    const reader = createPublicClient({ transport: http(chain.rpcUrl) });
    const allowance = () =>
      reader.readContract({
        address: usdt,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [carol, chain.permit2 as `0x${string}`],
      });
    expect(await allowance()).toBe(0n);

    const approve = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'approve',
      args: [chain.permit2 as `0x${string}`, maxUint256],
    });
    await evmSigner('carol').request({
      chainId: chain.caip2,
      method: 'eth_sendTransaction',
      params: [{ from: carol, to: usdt, data: approve }],
    });
    expect(await allowance()).toBe(maxUint256);

    // More than carol holds, with the gas given so the transaction is mined rather than refused by estimation.
    const overdraw = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [gw.buyer('alice').evmAddress as `0x${string}`, 10n ** 30n],
    });
    const reverted = await caught(
      evmSigner('carol').request({
        chainId: chain.caip2,
        method: 'eth_sendTransaction',
        params: [{ from: carol, to: usdt, data: overdraw, gas: '0x30000' }],
      }),
    );
    expect(reverted).toBeInstanceOf(TransactionRevertedError);
    const txHash = (reverted as TransactionRevertedError).txHash as `0x${string}`;
    expect((await reader.getTransactionReceipt({ hash: txHash })).status).toBe('reverted');
  });

  it('signs personal_sign messages for its own address only', async () => {
    const { evmAddress } = gw.buyer('bob');
    const signature = await evmSigner('bob').request({
      chainId: gw.evmChain,
      method: 'personal_sign',
      params: ['0x68656c6c6f', evmAddress],
    });
    expect(
      await verifyMessage({
        address: evmAddress as `0x${string}`,
        message: 'hello',
        signature: signature as `0x${string}`,
      }),
    ).toBe(true);
    const other = await caught(
      evmSigner('bob').request({
        chainId: gw.evmChain,
        method: 'personal_sign',
        params: ['0x68656c6c6f', gw.buyer('alice').evmAddress],
      }),
    );
    expect(other).toBeInstanceOf(InvalidActionError);
  });

  it('refuses typed data bound to another chain, a chain without an RPC URL, and an RPC serving another chain', async () => {
    const { paymentId } = await gw.newPayment();
    const option = await optionFor(paymentId, evmAccount('bob'), 'USDC');
    const params = JSON.parse((option.actions[0] as WalletRpcAction).data.params) as unknown[];
    const [otherChain] = gw.devnet.manifest.evm.slice(1).map((chain) => chain.caip2);
    const wrongDomain = await caught(
      evmSigner('bob').request({ chainId: otherChain!, method: 'eth_signTypedData_v4', params }),
    );
    expect(wrongDomain).toBeInstanceOf(InvalidActionError);

    const send = (signer: EvmSigner, chainId: string) =>
      signer.request({
        chainId,
        method: 'eth_sendTransaction',
        params: [{ to: gw.buyer('alice').evmAddress, value: '0x1' }],
      });
    expect(await caught(send(evmSigner('bob'), 'eip155:999'))).toBeInstanceOf(UnknownChainError);
    const misrouted = evmSignerFromAccount(privateKeyToAccount(gw.buyer('bob').evmPrivateKey), {
      rpcUrls: { [otherChain!]: gw.rpcUrls[gw.evmChain]! },
    });
    expect(String(await caught(send(misrouted, otherChain!)))).toMatch(/chain/i);
  });
});

describe('solanaSignerFromKeyPair', () => {
  it('refuses a transaction that does not ask for its signature', async () => {
    const { paymentId } = await gw.newPayment();
    const option = await optionFor(paymentId, solanaAccount('alice'), 'USDC');
    const build = option.actions[0]!;
    if (build.type !== 'build') throw new Error('expected a build action');
    const { actions } = await gw.client.fetchActions(paymentId, { optionId: option.id, data: build.data.data });
    const [{ transaction }] = JSON.parse(actions[0]!.data.params) as [{ transaction: string }];
    expect(Object.keys(getTransactionDecoder().decode(getBase64Encoder().encode(transaction)).signatures)).toContain(
      gw.buyer('alice').solanaAddress,
    );
    const error = await caught(solanaSigner('bob').signTransaction(transaction));
    expect(error).toBeInstanceOf(InvalidActionError);
    expect(String(error)).toContain(gw.buyer('bob').solanaAddress);
  });
});
