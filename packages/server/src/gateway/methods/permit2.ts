import {
  type Address,
  decodeFunctionData,
  type Hex,
  isAddressEqual,
  type PublicClient,
  TransactionNotFoundError,
} from 'viem';
import { erc20Abi } from '../../chains/evm/abis.ts';
import {
  evmChainId,
  PERMIT2_ADDRESS,
  permit2ApprovalTransaction,
  PaymentRefusedError,
  type PermitTransferTypedData,
  permitTransferFromTypedData,
  relayPermitTransfer,
  verifyPermitTransfer,
} from '../../chains/evm/index.ts';
import type { NetworkInfo } from '../../chains/registry.ts';
import { seenWithin, SIGNATURE, sightingWaitMs, TRANSACTION_HASH } from '../walletResultFormats.ts';
import { configuredEvmNetwork, relayOnce } from './evmRelay.ts';
import { type ConfirmationCheck, type PaymentMethodHandler, sentTransferFailure } from './paymentMethod.ts';
import { acceptedEvmNetwork, refusalOf, resultValue } from './refusals.ts';
import { signTypedDataParams } from './signTypedDataParams.ts';
import type { Permit2Terms, StoredPermit, WalletRpcAction } from './terms.ts';

const TRANSFER_PURPOSE = 'permit2_transfer';
const APPROVAL_KIND = 'permit2_approval';

function permitTypedData(permit: StoredPermit): PermitTransferTypedData {
  return permitTransferFromTypedData({
    chainId: permit.chainId,
    token: permit.token,
    amount: BigInt(permit.amount),
    spender: permit.spender,
    paymentId: permit.paymentId,
    deadline: BigInt(permit.deadline),
  });
}

/**
 * The actions of a Permit2 option (D11): the permit of exactly `amount` to the collector, valid until the payment
 * expires and bound to it by its nonce; preceded by an `approve` of Permit2 when the allowance is short.
 */
function permit2Offer(params: {
  network: NetworkInfo;
  chainId: number;
  owner: Address;
  token: Address;
  amount: bigint;
  collector: Address;
  paymentId: string;
  deadline: Date;
  needsApproval: boolean;
}): { terms: Permit2Terms; actions: WalletRpcAction[] } {
  const permit: StoredPermit = {
    chainId: params.chainId,
    owner: params.owner,
    token: params.token,
    amount: params.amount.toString(),
    spender: params.collector,
    paymentId: params.paymentId,
    deadline: Math.floor(params.deadline.getTime() / 1000).toString(),
  };
  const chain_id = params.network.caip2;
  const sign: WalletRpcAction = {
    type: 'walletRpc',
    data: {
      chain_id,
      method: 'eth_signTypedData_v4',
      params: signTypedDataParams(permit.owner, permitTypedData(permit)),
    },
  };
  if (!params.needsApproval) return { terms: { kind: 'permit2', permit, approval: false }, actions: [sign] };
  const approve: WalletRpcAction = {
    type: 'walletRpc',
    data: {
      chain_id,
      method: 'eth_sendTransaction',
      params: JSON.stringify([permit2ApprovalTransaction({ from: params.owner, token: params.token })]),
    },
  };
  return { terms: { kind: 'permit2', permit, approval: true }, actions: [approve, sign] };
}

/**
 * Checks the approval the buyer sent: the owner's own call of `approve(Permit2, amount or more)` on the token. It
 * may not be mined yet; the submission waits for it.
 */
async function checkApprovalTransaction(
  client: PublicClient,
  network: NetworkInfo,
  hash: Hex,
  permit: StoredPermit,
): Promise<void> {
  const transaction = await seenWithin(sightingWaitMs(network), 250, () =>
    client.getTransaction({ hash }).catch((error: unknown) => {
      if (error instanceof TransactionNotFoundError) return null;
      throw error;
    }),
  );
  if (!transaction)
    throw new PaymentRefusedError('approval_failed', `the node does not know the approval transaction ${hash}`);
  if (
    !isAddressEqual(transaction.from, permit.owner) ||
    !transaction.to ||
    !isAddressEqual(transaction.to, permit.token)
  ) {
    throw new PaymentRefusedError(
      'approval_failed',
      `the transaction ${hash} is not ${permit.owner}'s call of ${permit.token}`,
    );
  }
  let call: ReturnType<typeof decodeFunctionData<typeof erc20Abi>> | null;
  try {
    call = decodeFunctionData({ abi: erc20Abi, data: transaction.input });
  } catch {
    call = null;
  }
  if (
    call?.functionName !== 'approve' ||
    !isAddressEqual(call.args[0], PERMIT2_ADDRESS) ||
    call.args[1] < BigInt(permit.amount)
  ) {
    throw new PaymentRefusedError(
      'approval_failed',
      `the transaction ${hash} does not approve Permit2 for ${permit.amount} minor units`,
    );
  }
}

/**
 * Checks a Permit2 option's results against its terms and the chain: the approval (when the option has one) and
 * the buyer's signature of exactly the offered permit, its nonce unspent and the balance there. Without a pending
 * approval the transfer is also simulated. Throws PaymentRefusedError.
 */
async function verifyPermit2Results(
  client: PublicClient,
  network: NetworkInfo,
  terms: Permit2Terms,
  values: { approvalHash: Hex | null; signature: Hex },
  now: Date,
): Promise<ConfirmationCheck> {
  const { permit } = terms;
  if (values.approvalHash) await checkApprovalTransaction(client, network, values.approvalHash, permit);
  const typedData = permitTypedData(permit);
  try {
    const gas = await verifyPermitTransfer(client, {
      typedData,
      owner: permit.owner,
      signature: values.signature,
      expected: {
        token: permit.token,
        amount: BigInt(permit.amount),
        collector: permit.spender,
        paymentId: permit.paymentId,
        owner: permit.owner,
      },
      clock: { now: () => now },
    });
    return { gas };
  } catch (error) {
    // The allowance comes with the approval, which may still be on its way; the submission checks again once it is mined.
    if (!(terms.approval && error instanceof PaymentRefusedError && error.code === 'allowance_missing')) throw error;
    return {};
  }
}

/**
 * Other ERC-20 tokens on EVM chains (USDT): a Permit2 signature bound to the payment, which the collector relays,
 * preceded by the buyer's own approval of Permit2 when its allowance is short.
 */
export const permit2Method: PaymentMethodHandler<Permit2Terms> = {
  kind: 'permit2',
  namespace: 'eip155',
  tokenMethod: 'permit2',
  transfers: {
    [TRANSFER_PURPOSE]: { paysPayment: true, failureCode: sentTransferFailure },
    // A confirmed approval lets the permit be relayed.
    [APPROVAL_KIND]: { paysPayment: false, failureCode: () => 'approval_failed' },
  },

  async offer(services, network, candidate, _optionId, payment) {
    const { account, token, quote } = candidate;
    return permit2Offer({
      network,
      chainId: evmChainId(network),
      owner: account.address as Address,
      token: token.address as Address,
      amount: quote.amount,
      collector: services.evm.collector,
      paymentId: payment.id,
      // Valid until the payment expires, like an EIP-3009 authorisation.
      deadline: payment.expires_at,
      needsApproval: candidate.needsApproval,
    });
  },

  async verifyConfirmation(services, chains, option, results, now) {
    const { terms } = option;
    try {
      const approvalHash = terms.approval
        ? resultValue(results, 0, TRANSACTION_HASH, 'the hash of the approval transaction')
        : null;
      const signature = resultValue(results, results.length - 1, SIGNATURE, 'a 0x-prefixed hex signature');
      const network = acceptedEvmNetwork(chains, option);
      const check = await verifyPermit2Results(
        services.evm.clients.for(network),
        network,
        terms,
        { approvalHash, signature },
        now,
      );
      // The collector pays the relay's gas out of the operator's funding: a confirm it cannot cover is refused (one
      // waiting for its approval has no gas measured yet, and is checked when its relay is journaled).
      if (check.gas) await services.evm.relayer.requireNetworkFeeFunded(option.network, check.gas);
      return check;
    } catch (error) {
      throw refusalOf('payment', error);
    }
  },

  buyerTransaction(option, results) {
    // An approval may be older than the option.
    return option.terms.approval
      ? { kind: APPROVAL_KIND, hash: results[0]?.data[0] ?? '', notBefore: new Date(0) }
      : null;
  },

  /**
   * Relays the permit from the collector. An option that began with the buyer's approval waits for it without a job:
   * the follower watches the approval and queues this job again once it is mined at the network's depth.
   */
  async submit(ctx, services, paymentId, option, values, check) {
    const { terms } = option;
    if (terms.approval) {
      const approval = await ctx.db
        .selectFrom('chain_watches')
        .select('status')
        .where('chain', '=', option.network)
        .where('tx_hash', '=', (values[0] ?? '').toLowerCase())
        .where('payment_id', '=', paymentId)
        .executeTakeFirst();
      if (approval?.status !== 'confirmed') return null;
    }
    const { permit } = terms;
    const network = configuredEvmNetwork(ctx, option);
    return relayOnce(ctx, services, paymentId, TRANSFER_PURPOSE, () =>
      relayPermitTransfer(services.evm.clients.for(network), services.evm.relayer, network, {
        typedData: permitTypedData(permit),
        owner: permit.owner,
        signature: values.at(-1) as Hex,
        expected: {
          token: permit.token,
          amount: BigInt(permit.amount),
          collector: permit.spender,
          paymentId,
          owner: permit.owner,
        },
        clock: ctx.clock,
        // Measured before the approval was mined, if it had one: the transfer's gas is measured again now.
        ...(check?.gas && !terms.approval ? { gas: check.gas } : {}),
      }),
    );
  },
};
