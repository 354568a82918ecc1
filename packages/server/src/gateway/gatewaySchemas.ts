import { Type } from '@sinclair/typebox';
import { Nullable } from '../http/schemas.ts';
import { TokenAmount } from '../payments/paymentResource.ts';

export const GatewayPaymentParams = Type.Object({ id: Type.String({ maxLength: 64, description: 'The paymentId' }) });

export const WalletRpcActionSchema = Type.Object({
  type: Type.Literal('walletRpc'),
  data: Type.Object({
    chain_id: Type.String({ description: 'CAIP-2 chain id' }),
    method: Type.String(),
    params: Type.String({
      description:
        "JSON-encoded parameters, for the wallet as they are: a native-coin option's eth_sendTransaction carries the option's reference in data, which the confirm checks on chain",
    }),
  }),
});

export const BuildActionSchema = Type.Object({
  type: Type.Literal('build'),
  data: Type.Object({ data: Type.String({ description: 'Resolved into walletRpc actions by the fetch operation' }) }),
});

export const CollectDataSchema = Type.Object(
  {
    url: Type.String({
      description:
        'The form to show in a WebView until it signals IC_COMPLETE; scoped to the account (or, at the top level, the whole payment)',
    }),
    schema: Type.Record(Type.String(), Type.Unknown(), {
      description: 'JSON Schema (draft-07) of the buyer data, for a wallet that builds its own form',
    }),
    fields: Type.Array(
      Type.Object({
        id: Type.String({ description: 'The property of schema, and the id of its collectedData entry' }),
        name: Type.String(),
        type: Type.Union([Type.Literal('text'), Type.Literal('date'), Type.Literal('checkbox')]),
        required: Type.Boolean({ description: 'A place is not required on its own: either one is enough' }),
      }),
      { deprecated: true, description: 'Deprecated: the fields of schema as a list; use url or schema' },
    ),
  },
  { description: 'Buyer data asked for this payment (D14)' },
);

export const PaymentOptionSchema = Type.Object({
  id: Type.String({ description: 'Sent back as optionId' }),
  account: Type.String({ description: 'The CAIP-10 account the option pays from' }),
  amount: TokenAmount,
  etaS: Type.Integer({ minimum: 0, description: 'Seconds from submission to confirmation' }),
  expiresAt: Nullable(
    Type.Integer({
      description: "Unix seconds when the quote ends; null for a token pegged to the payment's currency",
    }),
  ),
  actions: Type.Array(Type.Union([WalletRpcActionSchema, BuildActionSchema])),
  collectData: Nullable(CollectDataSchema),
});
