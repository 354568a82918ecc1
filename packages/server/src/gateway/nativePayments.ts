import { type Address, type Hex, numberToHex, type PublicClient } from 'viem';
import { type NativeTransferState, PaymentRefusedError, verifyNativeTransfer } from '../chains/evm/index.ts';
import type { NetworkInfo } from '../chains/registry.ts';
import type { WalletRpcAction } from './paymentOptions.ts';
import { seenWithin, sightingWaitMs } from './walletResultFormats.ts';

/** A native-coin transfer as offered: `value` in the coin's minor unit (wei), as a decimal string. */
export interface NativeTerms {
  kind: 'native';
  from: Address;
  to: Address;
  value: string;
}

/** The one action of a native-coin option (D11): the buyer sends exactly `value` to the collector. */
export function nativeOffer(params: { network: NetworkInfo; from: Address; collector: Address; value: bigint }): {
  terms: NativeTerms;
  actions: WalletRpcAction[];
} {
  const terms: NativeTerms = { kind: 'native', from: params.from, to: params.collector, value: params.value.toString() };
  const transaction = { from: params.from, to: params.collector, value: numberToHex(params.value) };
  return {
    terms,
    actions: [{ type: 'walletRpc', data: { chain_id: params.network.caip2, method: 'eth_sendTransaction', params: JSON.stringify([transaction]) } }],
  };
}

function expectedTransfer(terms: NativeTerms) {
  return { from: terms.from, to: terms.to, value: BigInt(terms.value) };
}

/**
 * Checks the buyer's transfer by its hash: from the buyer, to the collector, exactly the quoted value. It may
 * still be unmined. That it pays no other payment is checked when the confirm is recorded. Throws PaymentRefusedError.
 */
export async function verifyNativeResult(client: PublicClient, network: NetworkInfo, terms: NativeTerms, hash: Hex): Promise<void> {
  const state = await seenWithin(sightingWaitMs(network), 250, async () => {
    const seen = await verifyNativeTransfer(client, network, hash, expectedTransfer(terms));
    return seen.state === 'not_found' ? null : seen;
  });
  if (!state) throw new PaymentRefusedError('transfer_not_found', `the node does not know the transaction ${hash}`);
}

/** Waits until the transfer is mined at the network's depth, or `waitMs` passes. Throws PaymentRefusedError. */
export async function waitForNativeTransfer(client: PublicClient, network: NetworkInfo, terms: NativeTerms, hash: Hex, waitMs: number): Promise<NativeTransferState> {
  const intervalMs = Math.min(Math.max(network.blockTimeMs / 4, 100), 2_000);
  const confirmed = await seenWithin(waitMs, intervalMs, async () => {
    const state = await verifyNativeTransfer(client, network, hash, expectedTransfer(terms));
    return state.state === 'confirmed' ? state : null;
  });
  return confirmed ?? { state: 'pending', confirmations: 0 };
}
