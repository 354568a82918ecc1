import type { Address, Hex } from 'viem';
import {
  type ExpectedReceipt,
  type ReceiveAuthorizationTypedData,
  receiveWithAuthorizationTypedData,
  relayReceiveWithAuthorization,
  storedAuthorizationOf,
  storedAuthorizationTypedData,
  verifyReceiveAuthorization,
} from '../../chains/evm/index.ts';
import type { ChainServices } from '../chainServices.ts';
import type { OptionRow } from '../optionLookup.ts';
import { SIGNATURE } from '../walletResultFormats.ts';
import { configuredEvmNetwork, relayOnce } from './evmRelay.ts';
import { type PaymentMethodHandler, sentTransferFailure } from './paymentMethod.ts';
import { acceptedEvmNetwork, refusalOf, resultValue } from './refusals.ts';
import { signTypedDataParams } from './signTypedDataParams.ts';
import type { Eip3009Terms } from './terms.ts';

const RELAY_PURPOSE = 'eip3009_receive';

/** What the option quoted, which the signed authorisation must match exactly. */
function quotedReceipt(
  services: ChainServices,
  option: OptionRow<Eip3009Terms>,
  typedData: ReceiveAuthorizationTypedData,
): ExpectedReceipt {
  return {
    token: typedData.domain.verifyingContract,
    collector: services.evm.collector,
    value: BigInt(option.amount),
    from: typedData.message.from,
  };
}

/** USDC and EURC on EVM chains: one signed `ReceiveWithAuthorization` of the amount to the collector, which the service relays. */
export const eip3009Method: PaymentMethodHandler<Eip3009Terms> = {
  kind: 'eip3009',
  namespace: 'eip155',
  tokenMethod: 'eip3009',
  transfers: { [RELAY_PURPOSE]: { paysPayment: true, failureCode: sentTransferFailure } },

  async offer(services, network, { account, token, quote }, _optionId, payment) {
    const domain = await services.evm.eip3009Token(services.evm.clients.for(network), token);
    // Valid until the payment expires: a later submission could pay an expired payment.
    const typedData = receiveWithAuthorizationTypedData({
      token: domain,
      from: account.address as Address,
      to: services.evm.collector,
      value: quote.amount,
      validAfter: 0n,
      validBefore: BigInt(Math.floor(payment.expires_at.getTime() / 1000)),
    });
    const authorization = storedAuthorizationOf(typedData);
    return {
      terms: { kind: 'eip3009', authorization },
      actions: [
        {
          type: 'walletRpc',
          data: {
            chain_id: network.caip2,
            method: 'eth_signTypedData_v4',
            params: signTypedDataParams(
              authorization.message.from,
              storedAuthorizationTypedData(authorization, 'ReceiveWithAuthorization'),
            ),
          },
        },
      ],
    };
  },

  async verifyConfirmation(services, chains, option, results, now) {
    try {
      const signature = resultValue(results, 0, SIGNATURE, 'a 0x-prefixed hex signature');
      const client = services.evm.clients.for(acceptedEvmNetwork(chains, option));
      const typedData = storedAuthorizationTypedData(option.terms.authorization, 'ReceiveWithAuthorization');
      const gas = await verifyReceiveAuthorization(client, {
        typedData,
        signature,
        expected: quotedReceipt(services, option, typedData),
        clock: { now: () => now },
      });
      // The collector pays the relay's gas out of the operator's funding: a confirm it cannot cover is refused.
      await services.evm.relayer.requireNetworkFeeFunded(option.network, gas);
      return { gas };
    } catch (error) {
      throw refusalOf('signed authorisation', error);
    }
  },

  submit(ctx, services, paymentId, option, values, check) {
    const typedData = storedAuthorizationTypedData(option.terms.authorization, 'ReceiveWithAuthorization');
    return relayOnce(ctx, services, paymentId, RELAY_PURPOSE, () =>
      relayReceiveWithAuthorization(services.evm.clients.for(configuredEvmNetwork(ctx, option)), services.evm.relayer, {
        chain: option.network,
        typedData,
        signature: values[0] as Hex,
        expected: quotedReceipt(services, option, typedData),
        clock: ctx.clock,
        paymentId,
        ...(check?.gas ? { gas: check.gas } : {}),
      }),
    );
  },
};
