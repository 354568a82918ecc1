import type { Namespace } from '../chains/caip.ts';
import { EvmPayoutSender } from './evmPayoutSender.ts';
import type { PayoutSender, PayoutSenderContext } from './payout.ts';
import { SolanaPayoutSender } from './solanaPayoutSender.ts';

/** One payout sender per namespace; a namespace without one does not compile. */
export function payoutSenders(context: PayoutSenderContext): { [N in Namespace]: PayoutSender } {
  return { eip155: new EvmPayoutSender(context), solana: new SolanaPayoutSender(context) };
}
