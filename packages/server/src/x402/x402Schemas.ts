import { type Static, Type } from '@sinclair/typebox';

// The bodies of x402's HTTP facilitator interface (x402 version 2, as `@x402/core`'s HTTPFacilitatorClient sends them):
// what the resource server built and what the agent signed. Only their envelope is checked here; what a payload says
// is checked by the scheme, which answers `isValid: false` (or `success: false`) with x402's reason rather than 400.

const PaymentRequirements = Type.Object(
  {
    scheme: Type.String({ maxLength: 64, description: '`exact`' }),
    network: Type.String({ maxLength: 128, description: 'CAIP-2 id of the network, e.g. `eip155:8453`' }),
    asset: Type.String({ maxLength: 128, description: "The token's contract address" }),
    amount: Type.Optional(
      Type.String({ maxLength: 80, description: 'Token minor units the resource costs; exactly this is settled' }),
    ),
    payTo: Type.String({ maxLength: 128, description: "The service's collector (`GET /v1/x402/supported`)" }),
    maxTimeoutSeconds: Type.Optional(Type.Integer()),
    extra: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "`name` and `version` of the token's EIP-712 domain",
      }),
    ),
  },
  { description: "The resource server's payment requirements (x402 `PaymentRequirements`)" },
);

const PaymentPayload = Type.Object(
  {
    x402Version: Type.Integer(),
    accepted: Type.Optional(PaymentRequirements),
    payload: Type.Record(Type.String(), Type.Unknown(), {
      description: '`exact` on EVM: `{signature, authorization {from, to, value, validAfter, validBefore, nonce}}`',
    }),
    resource: Type.Optional(
      Type.Object({ url: Type.Optional(Type.String({ maxLength: 2048 })) }, { description: 'What the agent pays for' }),
    ),
    extensions: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { description: "The agent's signed payment (x402 `PaymentPayload`)" },
);

export const FacilitatorRequest = Type.Object({
  x402Version: Type.Integer({ description: '2' }),
  paymentPayload: PaymentPayload,
  paymentRequirements: PaymentRequirements,
});

export type FacilitatorRequest = Static<typeof FacilitatorRequest>;
