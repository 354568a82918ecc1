import type { Namespace } from '../chains/caip.ts';
import { startEvmChain } from '../chains/evm/evmChain.ts';
import { ChainRegistry } from '../chains/registry.ts';
import { solanaCollector } from '../chains/solana/collectorKeyPair.ts';
import { startSolanaChain } from '../chains/solana/solanaChain.ts';
import type { ChainServices, ChainServicesOptions } from '../gateway/chainServices.ts';
import { paymentTransferOutcomes } from '../gateway/transferOutcomes.ts';
import { solanaPayTransferOutcomes } from '../solanaPay/solanaPayOutcomes.ts';
import { silentLogger } from '../log.ts';
import { getAddress } from 'viem';
import type { DepositTransfer } from '../chains/evm/deposits/nativeTransfers.ts';
import { evmDepositOutcomes, evmDepositSeen } from '../deposits/depositOutcomes.ts';
import { type AddressScreening, senderScreening } from '../screening/addressScreening.ts';
import { judgeCollectorInflows } from '../collectorInflows/judgeInflows.ts';
import { withX402Deposits } from '../x402/x402Deposits.ts';
import { withX402SvmDeposits } from '../x402/x402SvmDeposits.ts';

/** Starts every namespace's chain adapter, reporting what their transfers' ends mean for payments and settlements. */
export async function createChainServices(options: ChainServicesOptions): Promise<ChainServices> {
  const log = options.log ?? silentLogger;
  const clock = options.clock ?? { now: () => new Date() };
  const outcomeContext = {
    chains: new ChainRegistry(options.networks),
    baseUrl: options.baseUrl ?? (() => ''),
    clock,
    log,
  };
  const onFinal = withX402SvmDeposits(
    outcomeContext.chains,
    withX402Deposits(outcomeContext.chains, paymentTransferOutcomes(outcomeContext)),
  );
  const of = (namespace: Namespace) => options.networks.filter((network) => network.namespace === namespace);
  const common = { db: options.db, onFinal, clock, log };
  const buyerTransferDeadlineMs = options.buyerTransferDeadlineMs ?? 15 * 60_000;
  const evm = startEvmChain({
    ...common,
    networks: of('eip155'),
    privateKey: options.keys.evmPrivateKey,
    onDeposit: evmDepositOutcomes(outcomeContext),
    onDepositSeen: evmDepositSeen({ ...outcomeContext, waitMs: buyerTransferDeadlineMs }),
    ...(options.screening?.enabled
      ? {
          screenDepositSender: (transfer: DepositTransfer) =>
            senderScreening(options.screening as AddressScreening)(
              `${transfer.chain}:${getAddress(transfer.from)}`,
              transfer.paymentId,
            ),
        }
      : {}),
    // A buyer's own native transfer may be confirmed until its deadline: only then is one no confirm claimed unsolicited.
    judgeCollectorInflows: (chain) => judgeCollectorInflows(options.db, chain, buyerTransferDeadlineMs),
  });
  const solana = startSolanaChain({
    ...common,
    networks: of('solana'),
    collector: await solanaCollector(options.keys),
    onSolanaPayTransfer: solanaPayTransferOutcomes(outcomeContext),
    ...(options.screening?.enabled ? { screenSolanaPaySender: senderScreening(options.screening) } : {}),
    judgeCollectorInflows: (chain) => judgeCollectorInflows(options.db, chain, buyerTransferDeadlineMs),
  });
  return {
    prices: options.prices,
    submitMaxAttempts: options.submitMaxAttempts ?? 25,
    buyerTransferDeadlineMs,
    followers: [...evm.followers, ...solana.followers],
    evm,
    solana,
  };
}
