import type { AddressScreening } from '../../src/screening/addressScreening.ts';
import { systemClock } from '../../src/clock.ts';
import { SettlementWorker } from '../../src/settlement/worker.ts';
import { warningsInto } from '../support/warnings.ts';
import { randomUUID } from 'node:crypto';
import { generateKeyPairSigner } from '@solana/kit';
import { type Address, createPublicClient, erc20Abi, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { readSolanaBalances } from '../../src/chains/solana/readSolanaBalances.ts';
import { solanaRpc } from '../../src/chains/solana/rpc.ts';
import { type GatewayTestbed, signSolanaAsWallet, signTypedDataAsWallet } from '../gateway/support/gatewayTestbed.ts';
import { call } from '../support/testServer.ts';

/** USDC on the testbed's first EVM chain and on Solana. */
export function usdcAssets(testbed: GatewayTestbed): {
  evm: { caip19: string; address: string };
  solana: { caip19: string; mint: string };
} {
  const evm = testbed.devnet.manifest.evm[0]!.tokens.find((token) => token.symbol === 'USDC')!;
  const solana = testbed.devnet.manifest.solana.tokens.find((token) => token.symbol === 'USDC')!;
  return { evm: { caip19: evm.caip19, address: evm.address }, solana: { caip19: solana.caip19, mint: solana.address } };
}

export function newEvmDestination(testbed: GatewayTestbed): string {
  return `${testbed.evmChain()}:${privateKeyToAccount(generatePrivateKey()).address}`;
}

export async function newSolanaDestination(testbed: GatewayTestbed): Promise<string> {
  return `${testbed.devnet.manifest.solana.caip2}:${(await generateKeyPairSigner()).address}`;
}

/** Token minor units held by a CAIP-10 account, read from the chain. */
export async function usdcBalance(testbed: GatewayTestbed, caip10: string): Promise<bigint> {
  const assets = usdcAssets(testbed);
  const owner = caip10.slice(caip10.lastIndexOf(':') + 1);
  if (caip10.startsWith('solana:')) {
    const balances = await readSolanaBalances(
      solanaRpc(testbed.devnet.manifest.solana.rpcUrl),
      [owner],
      [assets.solana.mint],
    );
    return balances[owner]?.tokens[assets.solana.mint] ?? 0n;
  }
  const client = createPublicClient({ transport: http(testbed.devnet.manifest.evm[0]!.rpcUrl) });
  return client.readContract({
    address: assets.evm.address as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner as Address],
  });
}

export async function addDestination(
  testbed: GatewayTestbed,
  merchantId: string,
  asset: string,
  destination: string,
): Promise<string> {
  const created = await call(testbed.server, `/v1/merchants/${merchantId}/settlements/crypto`, {
    method: 'POST',
    headers: { 'api-key': testbed.partner.apiKey, 'idempotency-key': randomUUID() },
    body: { settlements: [{ asset, destination }] },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.settlements[0].id;
}

export async function changeDestination(
  testbed: GatewayTestbed,
  merchantId: string,
  id: string,
  destination: string,
): Promise<void> {
  const changed = await call(testbed.server, `/v1/merchants/${merchantId}/settlements/crypto/${id}`, {
    method: 'PUT',
    headers: { 'api-key': testbed.partner.apiKey },
    body: { destination },
  });
  expect(changed.status, changed.text).toBe(200);
}

export async function paymentItem(testbed: GatewayTestbed, merchantId: string, paymentId: string): Promise<any> {
  const item = await call(testbed.server, `/v1/payments/${paymentId}`, {
    headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': merchantId },
  });
  expect(item.status, item.text).toBe(200);
  return item.body;
}

async function untilSucceeded(testbed: GatewayTestbed, paymentId: string): Promise<void> {
  for (let round = 0; round < 10; round += 1) {
    const status = await testbed.gateway(paymentId, '/status?maxPollMs=20000');
    if (status.body.status === 'succeeded') return;
    expect(['processing', 'requires_action'], status.text).toContain(status.body.status);
  }
  throw new Error(`payment ${paymentId} did not succeed`);
}

/**
 * Creates a payment of `fiatMinor` US cents for the merchant and pays it in USDC through the gateway as a wallet
 * would: options, sign (and for Solana fetch the transaction first), confirm, until succeeded.
 */
export async function payInUsdc(
  testbed: GatewayTestbed,
  merchantId: string,
  chain: 'evm' | 'solana',
  fiatMinor: bigint,
  buyerName = 'alice',
): Promise<string> {
  const created = await call(testbed.server, '/v1/payments', {
    method: 'POST',
    headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': merchantId },
    body: { amount: { unit: 'iso4217/USD', value: fiatMinor.toString() }, referenceId: `order-${randomUUID()}` },
  });
  expect(created.status, created.text).toBe(201);
  const { paymentId } = created.body;
  const assets = usdcAssets(testbed);
  const account = chain === 'evm' ? testbed.evmAccount(buyerName) : testbed.solanaAccount(buyerName);
  const { body } = await testbed.gateway(paymentId, '/options', { accounts: [account] });
  const asset = chain === 'evm' ? assets.evm.caip19 : assets.solana.caip19;
  const option = body.options.find((candidate: any) => candidate.amount.unit === `caip19/${asset}`);
  expect(option, JSON.stringify(body)).toBeDefined();
  let result: string;
  if (chain === 'evm') {
    result = await signTypedDataAsWallet(testbed.buyer(buyerName).evmPrivateKey, option.actions[0].data.params);
  } else {
    const fetched = await testbed.gateway(paymentId, '/fetch', {
      optionId: option.id,
      data: option.actions[0].data.data,
    });
    expect(fetched.status, fetched.text).toBe(200);
    result = await signSolanaAsWallet(testbed.buyer(buyerName).solanaSecretKey, fetched.body.actions[0].data.params);
  }
  const confirmed = await testbed.gateway(paymentId, '/confirm?maxPollMs=20000', {
    optionId: option.id,
    results: [{ type: 'walletRpc', data: [result] }],
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  await untilSucceeded(testbed, paymentId);
  return paymentId;
}

/**
 * The settlement worker on the testbed's chains, settling any amount at once, its warnings kept in `problems`; with
 * `screening`, destinations are screened before a batch is made.
 */
export function settlementWorker(
  testbed: GatewayTestbed,
  problems: string[],
  screening?: AddressScreening,
): SettlementWorker {
  return new SettlementWorker({
    db: testbed.server.db,
    chains: testbed.chains,
    services: testbed.services,
    clock: systemClock,
    baseUrl: () => testbed.server.url,
    minimumBatch: '0',
    log: warningsInto(problems),
    ...(screening ? { screening } : {}),
  });
}

/** A settlement round, then the batches it made taken to the end (confirmed or failed) by the networks' followers. */
export async function settleRound(testbed: GatewayTestbed, worker: SettlementWorker) {
  const round = await worker.runOnce();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const open = round.created.length
      ? await testbed.server.db
          .selectFrom('settlement_batches')
          .select('id')
          .where('id', 'in', round.created)
          .where('status', 'in', ['claimed', 'sent'])
          .execute()
      : [];
    if (!open.length) return round;
    if (Date.now() > deadline) throw new Error(`batches not final: ${open.map((batch) => batch.id).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
