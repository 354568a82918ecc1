import type { Hex } from 'viem';
import { configuredEvmNetwork, relayOnce } from '../gateway/methods/evmRelay.ts';
import type { PaymentMethodHandler } from '../gateway/methods/paymentMethod.ts';
import type { X402Permit2Terms } from '../gateway/methods/terms.ts';
import { permitWitnessTypedData, relayProxySettle, requirePermitValidAt } from './permitWitnessTransfer.ts';
import { X402_TRANSFER_PURPOSE, x402Eip3009Method } from './x402Eip3009Method.ts';
import { evmPayToOfPayment } from './x402PayTo.ts';

/**
 * An x402 `exact` payment on EVM by Permit2: the agent's signed `PermitWitnessTransferFrom` to x402's proxy, whose
 * `settle` the collector sends, paying the merchant's own address (`x402PayTo`). The x402 facilitator checks it and records it as the payment's
 * one option and confirmation (`x402Payments.ts`); from there the gateway's submissions send it and the network's
 * follower makes the payment succeeded or failed, as for any payment.
 */
export const x402Permit2Method: PaymentMethodHandler<X402Permit2Terms> = {
  kind: 'x402_permit2',
  namespace: 'eip155',
  tokenMethod: 'permit2',
  // Sent under the same purpose as an EIP-3009 payment's transfer, which is what it does to the payment.
  transfers: x402Eip3009Method.transfers,

  offer() {
    return Promise.reject(
      new Error('an x402 payment arrives signed through the x402 facilitator; it is never offered'),
    );
  },

  /** The facilitator checked the permit and simulated its settle before it recorded the payment. */
  async verifyConfirmation() {
    return {};
  },

  submit(ctx, services, paymentId, option, values, check) {
    const { terms } = option;
    return relayOnce(ctx, services, paymentId, X402_TRANSFER_PURPOSE, async () => {
      // A submission retried late must not send what the proxy or Permit2 would refuse (and charge the gas of a revert).
      requirePermitValidAt(terms, ctx.clock.now());
      return relayProxySettle(services.evm.clients.for(configuredEvmNetwork(ctx, option)), services.evm.relayer, {
        chain: option.network,
        typedData: permitWitnessTypedData(terms),
        owner: terms.owner,
        signature: values[0] as Hex,
        recipient: await evmPayToOfPayment(ctx.db, services, paymentId),
        purpose: X402_TRANSFER_PURPOSE,
        paymentId,
        ...(check?.gas ? { gas: check.gas } : {}),
      });
    });
  },
};
