import type { Hex } from 'viem';
import {
  relayAuthorization,
  requireTransferRecipient,
  requireTransferValidAt,
  simulateAuthorization,
  storedAuthorizationTypedData,
} from '../chains/evm/eip3009.ts';
import { configuredEvmNetwork, relayOnce } from '../gateway/methods/evmRelay.ts';
import { type PaymentMethodHandler, sentTransferFailure } from '../gateway/methods/paymentMethod.ts';
import { acceptedEvmNetwork, refusalOf, resultValue } from '../gateway/methods/refusals.ts';
import type { X402Eip3009Terms } from '../gateway/methods/terms.ts';
import { SIGNATURE } from '../gateway/walletResultFormats.ts';
import { evmPayToOfPayment } from './x402PayTo.ts';

/** The relayer's purpose of the transfer that pays an x402 payment. */
export const X402_TRANSFER_PURPOSE = 'x402_transfer';

/**
 * An x402 `exact` payment on EVM: the agent's signed EIP-3009 `TransferWithAuthorization` to the merchant's own
 * address (`x402PayTo`), which the service relays. The x402 facilitator checks it and records it as the payment's one option and confirmation
 * (`x402Payments.ts`); from there the gateway's submissions send it and the network's follower makes the payment
 * succeeded or failed, as for any payment.
 */
export const x402Eip3009Method: PaymentMethodHandler<X402Eip3009Terms> = {
  kind: 'x402_eip3009',
  namespace: 'eip155',
  tokenMethod: 'eip3009',
  transfers: { [X402_TRANSFER_PURPOSE]: { paysPayment: true, failureCode: sentTransferFailure } },

  offer() {
    return Promise.reject(
      new Error('an x402 payment arrives signed through the x402 facilitator; it is never offered'),
    );
  },

  async verifyConfirmation(services, chains, option, results, now) {
    try {
      const signature = resultValue(results, 0, SIGNATURE, 'a 0x-prefixed hex signature');
      const typedData = storedAuthorizationTypedData(option.terms.authorization, 'TransferWithAuthorization');
      requireTransferValidAt(typedData, now);
      const gas = await simulateAuthorization(services.evm.clients.for(acceptedEvmNetwork(chains, option)), {
        typedData,
        signature,
        sender: services.evm.collector,
      });
      return { gas };
    } catch (error) {
      throw refusalOf('signed authorisation', error);
    }
  },

  submit(ctx, services, paymentId, option, values, check) {
    const typedData = storedAuthorizationTypedData(option.terms.authorization, 'TransferWithAuthorization');
    return relayOnce(ctx, services, paymentId, X402_TRANSFER_PURPOSE, async () => {
      // A submission retried late must not send what the token would refuse (and charge the gas of a revert).
      requireTransferValidAt(typedData, ctx.clock.now());
      // Sent only when it pays the payment's merchant.
      requireTransferRecipient(typedData, await evmPayToOfPayment(ctx.db, services, paymentId));
      return relayAuthorization(services.evm.clients.for(configuredEvmNetwork(ctx, option)), services.evm.relayer, {
        chain: option.network,
        typedData,
        signature: values[0] as Hex,
        purpose: X402_TRANSFER_PURPOSE,
        paymentId,
        ...(check?.gas ? { gas: check.gas } : {}),
      });
    });
  },
};
