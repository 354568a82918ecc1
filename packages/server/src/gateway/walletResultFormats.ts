import { setTimeout as sleep } from 'node:timers/promises';
import type { NetworkInfo } from '../chains/registry.ts';

/** A signature as `eth_signTypedData_v4` returns it: 65 bytes for an account, longer for contract wallets. */
export const SIGNATURE = /^0x(?:[0-9a-fA-F]{2}){65,4096}$/;

/** A transaction hash as `eth_sendTransaction` returns it. */
export const TRANSACTION_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * Asks `look` until it finds something or `waitMs` passes: a transaction the wallet just sent may reach the
 * service's node a moment after the wallet's.
 */
export async function seenWithin<T>(
  waitMs: number,
  intervalMs: number,
  look: () => Promise<T | null>,
): Promise<T | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const found = await look();
    if (found !== null || Date.now() >= deadline) return found;
    await sleep(intervalMs);
  }
}

/** How long a confirm waits for the node to know a transaction the wallet just sent. */
export function sightingWaitMs(network: NetworkInfo): number {
  return Math.min(Math.max(2 * network.blockTimeMs, 5_000), 15_000);
}
