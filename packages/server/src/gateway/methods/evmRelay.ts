import { PaymentRefusedError } from '../../chains/evm/index.ts';
import type { NetworkInfo } from '../../chains/registry.ts';
import type { AppContext } from '../../context.ts';
import type { OptionRow } from '../optionLookup.ts';
import type { ChainServices } from '../chainServices.ts';
import type { Submission } from './paymentMethod.ts';

/**
 * Sends one transaction for the payment through the relayer, unless a retried job finds the one it recorded
 * before (so an authorisation or permit is relayed once; its stored bytes are sent again if they never were).
 * The network's follower sees it land and makes the payment final.
 */
export async function relayOnce(
  ctx: AppContext,
  services: ChainServices,
  paymentId: string,
  purpose: string,
  relay: () => Promise<unknown>,
): Promise<Submission> {
  const recorded = await ctx.db
    .selectFrom('evm_transactions')
    .select('id')
    .where('payment_id', '=', paymentId)
    .where('purpose', '=', purpose)
    .executeTakeFirst();
  if (recorded) {
    await services.evm.relayer.broadcast(recorded.id);
    return null;
  }
  try {
    await relay();
    return null;
  } catch (error) {
    // Refused before anything was sent (the buyer spent the balance meanwhile, the authorisation expired).
    if (error instanceof PaymentRefusedError) return { refused: error.code };
    throw error;
  }
}

/** The option's EVM network at submission time. */
export function configuredEvmNetwork(ctx: AppContext, option: OptionRow): NetworkInfo {
  const network = ctx.chains.network(option.network);
  if (!network) throw new Error(`${option.network} is not configured`);
  return network;
}
