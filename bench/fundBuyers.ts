import { type DevnetEvmChain, PERMIT2_ADDRESS } from '@paygate/devnet';
import {
  type Address,
  encodeFunctionData,
  type Hex,
  keccak256,
  maxUint256,
  numberToHex,
  parseAbi,
  parseGwei,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

const erc20Abi = parseAbi([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
]);
const BATCH = 100;
const GAS = 100_000n;
// Far above the devnet's base fee even after a run of full blocks; the unused part is never charged.
const MAX_FEE = parseGwei('100');
const PRIORITY_FEE = parseGwei('1');
const RECEIPTS_TIMEOUT_MS = 180_000;

interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { message: string };
}

/** One JSON-RPC call straight to a node. */
export async function nodeCall(url: string, method: string, params: unknown[]): Promise<unknown> {
  const [answer] = await nodeBatch(url, [{ method, params }]);
  return answer;
}

/** JSON-RPC batches straight to a node, `BATCH` calls per request; throws on the first error. */
export async function nodeBatch(url: string, calls: { method: string; params: unknown[] }[]): Promise<unknown[]> {
  const results: unknown[] = [];
  for (let start = 0; start < calls.length; start += BATCH) {
    const chunk = calls.slice(start, start + BATCH);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chunk.map((call, index) => ({ jsonrpc: '2.0', id: index, ...call }))),
    });
    const answers = (await response.json()) as RpcAnswer[];
    const byId = new Map(answers.map((answer) => [answer.id, answer]));
    chunk.forEach((call, index) => {
      const answer = byId.get(index);
      if (!answer || answer.error)
        throw new Error(`${call.method} on ${url}: ${answer?.error?.message ?? 'no answer'}`);
      results.push(answer.result);
    });
  }
  return results;
}

export interface EvmGrant {
  account: PrivateKeyAccount;
  /** Whole tokens of each symbol sent from the devnet's faucet. */
  tokens: Partial<Record<'USDC' | 'USDT', bigint>>;
  approvePermit2: boolean;
}

/**
 * Funds many EVM accounts on one devnet chain in a few blocks: native coin set directly (`anvil_setBalance`),
 * tokens sent from the devnet's faucet and Permit2 approvals sent by the buyers, all signed here with explicit
 * nonces and sent back to back, then waits until every one is mined and succeeded.
 */
export async function fundEvmAccounts(
  chain: DevnetEvmChain,
  faucetKey: Hex,
  grants: EvmGrant[],
  nativeWei: bigint,
): Promise<void> {
  const url = chain.rpcUrl;
  await nodeBatch(
    url,
    grants.map((grant) => ({ method: 'anvil_setBalance', params: [grant.account.address, numberToHex(nativeWei)] })),
  );
  const faucet = privateKeyToAccount(faucetKey);
  let faucetNonce = Number(await nodeCall(url, 'eth_getTransactionCount', [faucet.address, 'pending']));
  const signed: Hex[] = [];
  const sign = async (account: PrivateKeyAccount, nonce: number, to: Address, data: Hex) =>
    signed.push(
      await account.signTransaction({
        chainId: chain.chainId,
        type: 'eip1559',
        nonce,
        to,
        data,
        gas: GAS,
        maxFeePerGas: MAX_FEE,
        maxPriorityFeePerGas: PRIORITY_FEE,
      }),
    );
  const approvers = grants.filter((grant) => grant.approvePermit2);
  const approverNonces = (
    await nodeBatch(
      url,
      approvers.map((grant) => ({ method: 'eth_getTransactionCount', params: [grant.account.address, 'pending'] })),
    )
  ).map(Number);
  const nonceOf = new Map(approvers.map((grant, index) => [grant.account.address, approverNonces[index] ?? 0]));
  for (const grant of grants) {
    for (const [symbol, amount] of Object.entries(grant.tokens) as ['USDC' | 'USDT', bigint][]) {
      const token = chain.tokens.find((candidate) => candidate.symbol === symbol);
      if (!token) throw new Error(`${chain.caip2} has no ${symbol}`);
      const data = encodeFunctionData({
        abi: erc20Abi,
        functionName: 'transfer',
        args: [grant.account.address, amount * 10n ** BigInt(token.decimals)],
      });
      await sign(faucet, faucetNonce++, token.address as Address, data);
    }
    if (grant.approvePermit2) {
      const usdt = chain.tokens.find((candidate) => candidate.symbol === 'USDT');
      if (!usdt) throw new Error(`${chain.caip2} has no USDT`);
      await sign(
        grant.account,
        nonceOf.get(grant.account.address) ?? 0,
        usdt.address as Address,
        encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [PERMIT2_ADDRESS, maxUint256] }),
      );
    }
  }
  await nodeBatch(
    url,
    signed.map((raw) => ({ method: 'eth_sendRawTransaction', params: [raw] })),
  );
  let waiting = signed.map((raw) => keccak256(raw));
  const deadline = Date.now() + RECEIPTS_TIMEOUT_MS;
  while (waiting.length) {
    if (Date.now() > deadline)
      throw new Error(
        `${waiting.length} funding transactions on ${chain.caip2} not mined after ${RECEIPTS_TIMEOUT_MS} ms`,
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const receipts = (await nodeBatch(
      url,
      waiting.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })),
    )) as ({ status: string } | null)[];
    const reverted = waiting.filter((_hash, index) => receipts[index] && receipts[index]?.status !== '0x1');
    if (reverted.length) throw new Error(`funding transaction ${reverted[0]} reverted on ${chain.caip2}`);
    waiting = waiting.filter((_hash, index) => !receipts[index]);
  }
}
