import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { errorResponses } from '../http/schemas.ts';
import type { NetworkInfo } from '../chains/registry.ts';

const AcceptedToken = Type.Object({
  asset: Type.String({ description: 'CAIP-19 id, e.g. eip155:8453/erc20:0x8335...' }),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Type.Integer(),
  method: Type.Union(
    [
      Type.Literal('eip3009'),
      Type.Literal('eip2612'),
      Type.Literal('permit2'),
      Type.Literal('native'),
      Type.Literal('spl'),
    ],
    {
      description:
        'How a buyer pays with it: eip3009 (a signed ReceiveWithAuthorization), eip2612 (a signed permit), permit2 (a Permit2 signature, after an approval of Permit2 when needed), native (a transfer of the coin), spl (a Solana transfer the service pays the fee of)',
    },
  ),
  peggedTo: Type.Optional(Type.String({ description: 'ISO 4217 currency of a stablecoin, paid at par' })),
});

const AcceptedNetwork = Type.Object({
  id: Type.String({ description: 'CAIP-2 id, e.g. eip155:8453' }),
  name: Type.String(),
  confirmations: Type.Integer({ description: 'Depth at which a payment counts as succeeded' }),
  tokens: Type.Array(AcceptedToken),
});

/** A network as integrators see it: never its RPC URL, which may carry a provider's key. */
function acceptedNetwork(network: NetworkInfo) {
  return {
    id: network.caip2,
    name: network.name,
    confirmations: network.confirmations,
    tokens: network.tokens.map((token) => ({
      asset: token.caip19,
      symbol: token.symbol,
      name: token.name,
      decimals: token.decimals,
      method: token.method,
      ...(token.peggedTo ? { peggedTo: token.peggedTo } : {}),
    })),
  };
}

/** `GET /v1/networks`: what buyers can pay with here, public like the checkout page that shows it. */
export function registerListNetworks(app: App, ctx: AppContext): void {
  const networks = ctx.chains.networks.filter((network) => network.rpcUrl).map(acceptedNetwork);
  app.get(
    '/v1/networks',
    {
      config: { auth: false as const },
      schema: {
        tags: ['networks'],
        summary: 'The networks and tokens this service accepts',
        description:
          'Networks this deployment follows (it has a node for them), with their tokens: the CAIP-19 ids to use for ' +
          'settlement destinations and list filters, decimals and how a buyer pays.',
        response: { 200: Type.Object({ networks: Type.Array(AcceptedNetwork) }), ...errorResponses() },
      },
    },
    async () => ({ networks }),
  );
}
