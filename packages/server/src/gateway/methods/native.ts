import { type Address, getAddress, type Hex, isAddressEqual, numberToHex, type PublicClient } from 'viem';
import {
  blockTimestamps,
  claimNativeTransfer,
  type ExpectedNativeTransfer,
  nativeTransferReference,
  PaymentRefusedError,
  verifyNativeTransfer,
} from '../../chains/evm/index.ts';
import { MINED_BEFORE_OPTION } from '../../chains/evm/watches.ts';
import type { NetworkInfo } from '../../chains/registry.ts';
import { seenWithin, sightingWaitMs, TRANSACTION_HASH } from '../walletResultFormats.ts';
import type { PaymentMethodHandler } from './paymentMethod.ts';
import { acceptedEvmNetwork, refusalOf, resultValue } from './refusals.ts';
import type { NativeTerms, WalletRpcAction } from './terms.ts';

/** The one action of a native-coin option (D11): the buyer sends exactly `value` to the collector, with the option's reference. */
function nativeOffer(params: {
  network: NetworkInfo;
  optionId: string;
  from: Address;
  collector: Address;
  value: bigint;
}): {
  terms: NativeTerms;
  actions: WalletRpcAction[];
} {
  const data = nativeTransferReference(params.optionId);
  const terms: NativeTerms = {
    kind: 'native',
    from: params.from,
    to: params.collector,
    value: params.value.toString(),
    data,
  };
  const transaction = { from: params.from, to: params.collector, value: numberToHex(params.value), data };
  return {
    terms,
    actions: [
      {
        type: 'walletRpc',
        data: { chain_id: params.network.caip2, method: 'eth_sendTransaction', params: JSON.stringify([transaction]) },
      },
    ],
  };
}

/** The option a native transfer is checked against: its terms and when it was offered. */
interface NativeOption {
  terms: NativeTerms;
  created_at: Date;
}

/**
 * The oldest block that may hold a transfer for the option. A block's timestamp is when its slot began, which can
 * be a few seconds before a transaction it includes was sent; the reference already rules out anything older.
 */
function earliestBlockTime(option: NativeOption): Date {
  return new Date(option.created_at.getTime() - 30_000);
}

function expectedTransfer(option: NativeOption): ExpectedNativeTransfer {
  const { terms } = option;
  // Such a transfer is bound to no option: whoever holds its hash could claim it for a payment of the same amount.
  if (!terms.data)
    throw new PaymentRefusedError(
      'option_outdated',
      'the option was offered without a transfer reference; ask for options again',
    );
  return {
    from: terms.from,
    to: terms.to,
    value: BigInt(terms.value),
    reference: terms.data,
    offeredAt: earliestBlockTime(option),
  };
}

/**
 * Checks the buyer's transfer by its hash: from the buyer, to the collector, exactly the quoted value, with the
 * option's reference, and not mined before the option was offered. It may still be unmined. That it pays no other
 * payment is checked when the confirm is recorded. Throws PaymentRefusedError.
 */
async function verifyNativeResult(
  client: PublicClient,
  network: NetworkInfo,
  option: NativeOption,
  hash: Hex,
): Promise<void> {
  const expected = expectedTransfer(option);
  const timestampOf = blockTimestamps(client);
  const state = await seenWithin(sightingWaitMs(network), 250, async () => {
    const seen = await verifyNativeTransfer(client, network, hash, expected, timestampOf);
    return seen.state === 'not_found' ? null : seen;
  });
  if (!state) throw new PaymentRefusedError('transfer_not_found', `the node does not know the transaction ${hash}`);
}

const WATCH_KIND = 'native_payment';

/**
 * A network's native coin, when the network lists it: the buyer sends it to the collector itself, with the option's
 * reference; the follower watches that transfer, which pays one payment only.
 */
export const nativeMethod: PaymentMethodHandler<NativeTerms> = {
  kind: 'native',
  namespace: 'eip155',
  tokenMethod: 'native',
  transfers: {
    [WATCH_KIND]: {
      paysPayment: true,
      failureCode: (transfer) => {
        if (transfer.status === 'expired') return 'transfer_not_mined';
        return transfer.reason === MINED_BEFORE_OPTION ? 'transfer_predates_option' : 'transfer_reverted';
      },
    },
  },

  async offer(services, network, { account, quote }, optionId) {
    return nativeOffer({
      network,
      optionId,
      from: account.address as Address,
      collector: services.evm.collector,
      value: quote.amount,
    });
  },

  async verifyConfirmation(services, chains, option, results) {
    try {
      const hash = resultValue(results, 0, TRANSACTION_HASH, 'the hash of the transfer transaction');
      const network = acceptedEvmNetwork(chains, option);
      await verifyNativeResult(services.evm.clients.for(network), network, option, hash);
      return {};
    } catch (error) {
      throw refusalOf('payment', error);
    }
  },

  async claim(trx, paymentId, option, results) {
    // In the confirm's transaction: a transfer pays one payment only, even when two payments' confirms race with it.
    const hash = (results[0]?.data[0] ?? '') as Hex;
    await claimNativeTransfer(trx, option.network, hash, paymentId).catch((error: unknown) => {
      throw refusalOf('payment', error);
    });
  },

  async refusedTransfer(services, chains, option, results) {
    const hash = results[0]?.data[0] ?? '';
    const network = chains.network(option.network);
    const native = network?.tokens.find((token) => token.method === 'native');
    if (!TRANSACTION_HASH.test(hash) || !network || !native) return null;
    const transaction = await services.evm.clients
      .for(network)
      .getTransaction({ hash: hash as Hex })
      .catch(() => null);
    if (!transaction?.to || !isAddressEqual(transaction.to, services.evm.collector) || transaction.value <= 0n)
      return null;
    // A transfer carrying another option's reference is that option's payment's to pay or record.
    const reference = transaction.input.toLowerCase();
    if (reference !== '0x' && reference !== option.terms.data?.toLowerCase()) return null;
    return {
      chain: network.caip2,
      hash,
      from: `${network.caip2}:${getAddress(transaction.from)}`,
      asset: native.caip19,
      amount: transaction.value,
      notBefore: earliestBlockTime(option),
    };
  },

  buyerTransaction(option, results) {
    // The transfer was made for this option.
    return { kind: WATCH_KIND, hash: results[0]?.data[0] ?? '', notBefore: earliestBlockTime(option) };
  },

  // The buyer sent it: the follower watches it from the confirmation on.
  submit: async () => null,
};
