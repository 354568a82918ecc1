import { type Address, encodeFunctionData, type Hex, parseAbi, parseSignature } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMIT_PULL_PURPOSE } from '../../src/chains/evm/eip2612.ts';
import { PERMIT_PULLER_DEPLOYMENT_PURPOSE, permitPullerAddress } from '../../src/chains/evm/permitPullerDeployment.ts';
import type { NetworkInfo, TokenInfo } from '../../src/chains/registry.ts';
import { auditOfMerchant } from '../support/ledgerAudit.ts';
import { type CallResult, expectErrorBody } from '../support/testServer.ts';
import {
  type GatewayTestbed,
  signTypedDataAsStranger,
  signTypedDataAsWallet,
  startGatewayTestbed,
} from './support/gatewayTestbed.ts';

let bed: GatewayTestbed;

beforeAll(async () => {
  bed = await startGatewayTestbed();
}, 180_000);

afterAll(async () => {
  await bed?.close();
});

const tokenAbi = parseAbi([
  'function allowance(address owner, address spender) view returns (uint256)',
  'function balanceOf(address owner) view returns (uint256)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
]);
const results = (...values: string[]) => values.map((value) => ({ type: 'walletRpc', data: [value] }));
const USDS_10 = (10n * 10n ** 18n).toString();

const network = () => bed.chains.network(bed.evmChain()) as NetworkInfo;
const client = () => bed.services.evm.clients.for(network());
const usds = () => network().tokens.find((token) => token.symbol === 'USDS') as TokenInfo;
const puller = () => permitPullerAddress(bed.services.evm.collector);

async function usdsOption(
  paymentId: string,
  buyerName: string,
  gateway: GatewayTestbed['gateway'] = bed.gateway,
): Promise<any> {
  const account = `${bed.evmChain()}:${bed.buyer(buyerName).evmAddress}`;
  const response = await gateway(paymentId, '/options', { accounts: [account] });
  expect(response.status, response.text).toBe(200);
  const option = response.body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'USDS');
  expect(option, `no USDS option for ${buyerName}`).toBeDefined();
  return option;
}

function signedBy(buyerName: string, option: any): Promise<string> {
  return signTypedDataAsWallet(bed.buyer(buyerName).evmPrivateKey, option.actions[0].data.params);
}

/** The permit an option asks the wallet to sign, as the wallet reads it. */
function permitOf(option: any): { domain: any; message: Record<string, string> } {
  const [, json] = JSON.parse(option.actions[0].data.params) as [string, string];
  return JSON.parse(json);
}

async function refusedReason(confirm: Promise<CallResult>): Promise<string> {
  const response = await confirm;
  expect(response.status, response.text).toBe(400);
  expect(expectErrorBody(response).code).toBe('invalid_params');
  return response.body.details?.reason;
}

function balanceOf(owner: string): Promise<bigint> {
  return client().readContract({
    address: usds().address as Address,
    abi: tokenAbi,
    functionName: 'balanceOf',
    args: [owner as Address],
  });
}

function pulls(paymentId: string) {
  return bed.server.db
    .selectFrom('evm_transactions')
    .select(['purpose', 'to_address'])
    .where('payment_id', '=', paymentId)
    .execute();
}

async function expectPayable(paymentId: string): Promise<void> {
  expect((await bed.gateway(paymentId, '/status')).body).toMatchObject({ status: 'requires_action', isFinal: false });
}

/** The buyer's permit sent to the token by someone else, as anyone who saw the signature could. */
async function submitPermitFirst(option: any, signature: string): Promise<void> {
  const { message } = permitOf(option);
  const { v, r, s } = parseSignature(signature as Hex);
  const sender = privateKeyToAccount(bed.buyer('bob').evmPrivateKey);
  const hash = await client().sendRawTransaction({
    serializedTransaction: await sender.signTransaction({
      chainId: client().chain!.id,
      type: 'eip1559',
      nonce: await client().getTransactionCount({ address: sender.address, blockTag: 'pending' }),
      to: usds().address as Address,
      data: encodeFunctionData({
        abi: tokenAbi,
        functionName: 'permit',
        args: [
          message.owner as Address,
          message.spender as Address,
          BigInt(message.value as string),
          BigInt(message.deadline as string),
          Number(v),
          r,
          s,
        ],
      }),
      gas: 200_000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    }),
  });
  expect((await client().waitForTransactionReceipt({ hash, pollingInterval: 200 })).status).toBe('success');
}

describe('EIP-2612 options (USDS)', () => {
  it('pays with one signed permit from a buyer holding no coin: one pull relayed, nothing left allowed, the ledger balanced', async () => {
    const erin = bed.buyer('erin');
    const { paymentId } = await bed.newPayment();
    const option = await usdsOption(paymentId, 'erin');
    expect(option).toMatchObject({ amount: { value: USDS_10, display: { decimals: 18 } }, expiresAt: null });
    expect(option.actions.map((action: any) => action.data.method)).toEqual(['eth_signTypedData_v4']);
    const permit = permitOf(option);
    expect(permit.domain).toMatchObject({ name: 'USDS Stablecoin', version: '1', verifyingContract: usds().address });
    expect(permit.message).toMatchObject({ owner: erin.evmAddress, spender: puller(), value: USDS_10, nonce: '0' });
    const before = { erin: await balanceOf(erin.evmAddress), collector: await balanceOf(bed.services.evm.collector) };

    // The network's first permit: its pull waits for the puller's deployment, then goes.
    const confirmed = await bed.gateway(paymentId, '/confirm', {
      optionId: option.id,
      results: results(await signedBy('erin', option)),
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    const final = await bed.finalStatus(paymentId);
    expect(final).toMatchObject({ status: 'succeeded', info: { optionAmount: { value: USDS_10 } } });
    expect(await bed.listed(paymentId)).toMatchObject({
      status: 'succeeded',
      buyer: { accountCaip10: bed.evmAccount('erin') },
      tokenAmount: { value: USDS_10, display: { assetSymbol: 'USDS' } },
      transaction: { hash: final.info.txId },
    });
    expect(await pulls(paymentId)).toEqual([{ purpose: PERMIT_PULL_PURPOSE, to_address: puller().toLowerCase() }]);
    const deployments = await bed.server.db
      .selectFrom('evm_transactions')
      .select(['status', 'payment_id'])
      .where('purpose', '=', PERMIT_PULLER_DEPLOYMENT_PURPOSE)
      .where('chain', '=', bed.evmChain())
      .execute();
    expect(deployments).toEqual([{ status: 'confirmed', payment_id: null }]);

    expect(await balanceOf(erin.evmAddress)).toBe(before.erin - BigInt(USDS_10));
    expect(await balanceOf(bed.services.evm.collector)).toBe(before.collector + BigInt(USDS_10));
    expect(
      await client().readContract({
        address: usds().address as Address,
        abi: tokenAbi,
        functionName: 'allowance',
        args: [erin.evmAddress as Address, puller()],
      }),
    ).toBe(0n);
    expect(await client().getBalance({ address: erin.evmAddress as Address })).toBe(0n);
    // The pull's network fee was reserved from the operator's funding and entered once final.
    const fees = await bed.server.db
      .selectFrom('ledger_entries')
      .select('entry')
      .where('entry', 'like', 'network_fee:%')
      .execute();
    const pull = await bed.server.db
      .selectFrom('evm_transactions')
      .select('id')
      .where('payment_id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect(fees.map((fee) => fee.entry)).toEqual(
      expect.arrayContaining([`network_fee:${pull.id}:reserved`, `network_fee:${pull.id}`]),
    );
    expect((await auditOfMerchant(bed.server.db, bed.merchantId)).differing).toEqual([]);
  });

  it('refuses a signature by anyone but the owner, and a permit signed for another spender; the payment stays payable', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await usdsOption(paymentId, 'alice');
    const stranger = await signTypedDataAsStranger(option.actions[0].data.params);
    const confirm = (signature: string) =>
      bed.gateway(paymentId, '/confirm', { optionId: option.id, results: results(signature) });
    expect(await refusedReason(confirm(stranger))).toBe('invalid_signature');
    // The owner's own signature of the permit with the collector itself as spender: not what was offered.
    const [, json] = JSON.parse(option.actions[0].data.params) as [string, string];
    const typedData = JSON.parse(json);
    typedData.message.spender = bed.services.evm.collector;
    const otherSpender = await privateKeyToAccount(bed.buyer('alice').evmPrivateKey).signTypedData(typedData);
    expect(await refusedReason(confirm(otherSpender))).toBe('invalid_signature');
    await expectPayable(paymentId);
    expect(await pulls(paymentId)).toEqual([]);
  });

  it("does not let the same signed permit pay a second payment, another partner's included", async () => {
    // Two payments quoting the same owner, amount, nonce and deadline offer the very same permit.
    const expiresAt = Math.floor(bed.clock.now().getTime() / 1000) + 900;
    const mine = await bed.newPayment({ expiresAt });
    const other = await bed.otherPartner('Replaying partner');
    const theirs = await other.newPayment({ expiresAt });
    const option = await usdsOption(mine.paymentId, 'bob');
    const theirOption = await usdsOption(theirs.paymentId, 'bob', other.gateway);
    expect(permitOf(theirOption)).toEqual(permitOf(option));
    const signature = await signedBy('bob', option);

    const accepted = await bed.gateway(mine.paymentId, '/confirm', {
      optionId: option.id,
      results: results(signature),
    });
    expect(accepted.status, accepted.text).toBe(200);
    const replayed = other.gateway(theirs.paymentId, '/confirm', {
      optionId: theirOption.id,
      results: results(signature),
    });
    expect(await refusedReason(replayed)).toBe('permit_already_used');
    expect((await bed.finalStatus(mine.paymentId)).status).toBe('succeeded');
    expect((await other.gateway(theirs.paymentId, '/status')).body.status).toBe('requires_action');

    // Once pulled, the permit's nonce is spent: a new option asks for the next one, and the old signature fails it.
    const later = await bed.newPayment();
    const next = await usdsOption(later.paymentId, 'bob');
    expect(BigInt(permitOf(next).message.nonce as string)).toBe(BigInt(permitOf(option).message.nonce as string) + 1n);
    const stale = bed.gateway(later.paymentId, '/confirm', { optionId: next.id, results: results(signature) });
    expect(await refusedReason(stale)).toBe('invalid_signature');
  });

  it('relays once when two confirms of the same permit race', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await usdsOption(paymentId, 'alice');
    const body = { optionId: option.id, results: results(await signedBy('alice', option)) };
    const answers = await Promise.all([
      bed.gateway(paymentId, '/confirm', body),
      bed.gateway(paymentId, '/confirm', body),
    ]);
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    expect((await bed.finalStatus(paymentId)).status).toBe('succeeded');
    expect(await pulls(paymentId)).toHaveLength(1);
  });

  it('still pays when someone else submits the permit first, and nothing is left allowed', async () => {
    const alice = bed.buyer('alice');
    const { paymentId } = await bed.newPayment();
    const option = await usdsOption(paymentId, 'alice');
    const signature = await signedBy('alice', option);
    await submitPermitFirst(option, signature);
    const before = await balanceOf(alice.evmAddress);

    const confirmed = await bed.gateway(paymentId, '/confirm', { optionId: option.id, results: results(signature) });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((await bed.finalStatus(paymentId)).status).toBe('succeeded');
    expect(await balanceOf(alice.evmAddress)).toBe(before - BigInt(USDS_10));
    expect(
      await client().readContract({
        address: usds().address as Address,
        abi: tokenAbi,
        functionName: 'allowance',
        args: [alice.evmAddress as Address, puller()],
      }),
    ).toBe(0n);
  });

  it('refuses a permit past its deadline: the payment has expired with it', async () => {
    const { paymentId, expiresAt } = await bed.newPayment();
    const option = await usdsOption(paymentId, 'alice');
    expect(permitOf(option).message.deadline).toBe(String(expiresAt));
    const signature = await signedBy('alice', option);
    const pastMs = expiresAt * 1000 - bed.clock.now().getTime() + 1000;
    bed.clock.advance(pastMs);
    try {
      const late = await bed.gateway(paymentId, '/confirm', { optionId: option.id, results: results(signature) });
      expect(late.status, late.text).toBe(410);
    } finally {
      bed.clock.advance(-pastMs);
    }
    expect(await pulls(paymentId)).toEqual([]);
  });
});
