import type { Namespace } from '../../chains/caip.ts';
import { EvmSettlementSender } from './evm.ts';
import type { SettlementSender, SettlementSenderContext } from './settlementSender.ts';
import { SolanaSettlementSender } from './solana.ts';

/** One settlement sender per namespace; a namespace without one does not compile. */
export function settlementSenders(context: SettlementSenderContext): { [N in Namespace]: SettlementSender } {
  return { eip155: new EvmSettlementSender(context), solana: new SolanaSettlementSender(context) };
}
