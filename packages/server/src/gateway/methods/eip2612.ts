import type { Address, Hex } from 'viem';
import {
  claimPermit,
  deployPermitPuller,
  type ExpectedPermit,
  PERMIT_PULL_PURPOSE,
  permitPullerAddress,
  permitPullerDeployed,
  permitTypedData,
  readPermitNonce,
  relayPermitPull,
  requirePermitPullerDeployable,
  storedPermitOf,
  storedPermitTypedData,
  verifyPermit,
} from '../../chains/evm/index.ts';
import type { ChainServices } from '../chainServices.ts';
import type { OptionRow } from '../optionLookup.ts';
import { SIGNATURE } from '../walletResultFormats.ts';
import { configuredEvmNetwork, relayOnce } from './evmRelay.ts';
import { type PaymentMethodHandler, sentTransferFailure } from './paymentMethod.ts';
import { acceptedEvmNetwork, refusalOf, resultValue } from './refusals.ts';
import { signTypedDataParams } from './signTypedDataParams.ts';
import type { Eip2612Terms } from './terms.ts';

/** What the option quoted, which the signed permit must match exactly. */
function quotedPermit(services: ChainServices, option: OptionRow<Eip2612Terms>): ExpectedPermit {
  const { domain, message } = option.terms.permit;
  return {
    token: domain.verifyingContract,
    owner: message.owner,
    value: BigInt(option.amount),
    collector: services.evm.collector,
  };
}

/**
 * Tokens with EIP-2612 `permit` and no EIP-3009 (the devnet's USDS): one signed permit of exactly the amount, whose
 * spender is the collector's permit puller; the collector relays one call of the puller's `pull`, which applies the
 * permit and moves the tokens to the collector. The buyer needs no gas and no approval transaction.
 *
 * One call through a small contract rather than two transactions (`permit`, then `transferFrom`): atomic, so a payment
 * never leaves a permit applied without its transfer (an allowance left over for nothing) and a crash has one
 * journaled transaction to finish, not a pair; its gas is measured by one simulation of the whole, where the
 * `transferFrom` of a pair could not be simulated before its `permit` lands; and its end is one transfer that pays or
 * fails the payment, as every other relayed method's. A permit someone submits first (it is public once broadcast)
 * makes the puller's `permit` fail but leaves the allowance, which the puller's transfer then uses: the payment goes
 * through. The allowance a pull leaves is none: the permit is of exactly the amount it moves.
 */
export const eip2612Method: PaymentMethodHandler<Eip2612Terms> = {
  kind: 'eip2612',
  namespace: 'eip155',
  tokenMethod: 'eip2612',
  transfers: { [PERMIT_PULL_PURPOSE]: { paysPayment: true, failureCode: sentTransferFailure } },

  async offer(services, network, { account, token, quote }, _optionId, payment) {
    const client = services.evm.clients.for(network);
    const owner = account.address as Address;
    const [domain, nonce] = await Promise.all([
      services.evm.eip2612Domain(client, token),
      readPermitNonce(client, token.address as Address, owner),
    ]);
    // Valid until the payment expires, like an EIP-3009 authorisation: a later submission could pay an expired payment.
    const typedData = permitTypedData(domain, {
      owner,
      spender: permitPullerAddress(services.evm.collector),
      value: quote.amount,
      nonce,
      deadline: BigInt(Math.floor(payment.expires_at.getTime() / 1000)),
    });
    return {
      terms: { kind: 'eip2612', permit: storedPermitOf(typedData) },
      actions: [
        {
          type: 'walletRpc',
          data: {
            chain_id: network.caip2,
            method: 'eth_signTypedData_v4',
            params: signTypedDataParams(owner, typedData),
          },
        },
      ],
    };
  },

  async verifyConfirmation(services, chains, option, results, now) {
    try {
      const signature = resultValue(results, 0, SIGNATURE, 'a 0x-prefixed hex signature');
      const client = services.evm.clients.for(acceptedEvmNetwork(chains, option));
      const pullerDeployed = await permitPullerDeployed(client, services.evm.collector);
      if (!pullerDeployed) await requirePermitPullerDeployable(client, option.network);
      const gas = await verifyPermit(client, {
        typedData: storedPermitTypedData(option.terms.permit),
        signature,
        expected: quotedPermit(services, option),
        clock: { now: () => now },
        pullerDeployed,
      });
      if (gas === undefined) return {};
      // The collector pays the pull's gas out of the operator's funding: a confirm it cannot cover is refused (one
      // waiting for the puller's deployment has no gas measured yet, and is checked when its pull is journaled).
      await services.evm.relayer.requireNetworkFeeFunded(option.network, gas);
      return { gas };
    } catch (error) {
      throw refusalOf('signed permit', error);
    }
  },

  async claim(trx, paymentId, option) {
    await claimPermit(trx, option.network, storedPermitTypedData(option.terms.permit), paymentId).catch(
      (error: unknown) => {
        throw refusalOf('signed permit', error);
      },
    );
  },

  /**
   * Relays the pull from the collector. On a network where the puller is not deployed yet, journals its deployment
   * and fails this attempt, so the submission is tried again after its backoff, once the puller's code is there.
   */
  submit(ctx, services, paymentId, option, values, check) {
    const network = configuredEvmNetwork(ctx, option);
    const client = services.evm.clients.for(network);
    return relayOnce(ctx, services, paymentId, PERMIT_PULL_PURPOSE, async () => {
      if (!(await permitPullerDeployed(client, services.evm.collector))) {
        await deployPermitPuller(ctx.db, services.evm.relayer, client, network.caip2);
        throw new Error(`the permit puller on ${network.caip2} is being deployed; the pull waits for it`);
      }
      return relayPermitPull(client, services.evm.relayer, {
        chain: network.caip2,
        typedData: storedPermitTypedData(option.terms.permit),
        signature: values[0] as Hex,
        expected: quotedPermit(services, option),
        clock: ctx.clock,
        paymentId,
        ...(check?.gas ? { gas: check.gas } : {}),
      });
    });
  },
};
