import { Type } from '@sinclair/typebox';
import type { NetworkInfo, TokenInfo } from '../chains/registry.ts';
import type { App, AppContext } from '../context.ts';
import type { ChainServices } from '../gateway/chainServices.ts';
import { chainServicesOf } from '../gateway/gatewayPayment.ts';
import { errorResponses } from '../http/schemas.ts';
import { liveMerchantOfRequest, MerchantIdHeader, requireMerchantIdHeader } from '../payments/merchantHeader.ts';
import { x402PayTo } from './x402PayTo.ts';
import { X402_VERSION } from './x402Requirements.ts';

const SupportedAsset = Type.Object({
  asset: Type.String({ description: "The token's contract address (on Solana its mint): the requirements' `asset`" }),
  symbol: Type.String(),
  decimals: Type.Integer(),
  peggedTo: Type.String({ description: 'The ISO 4217 currency the payment is counted in' }),
  name: Type.Optional(Type.String({ description: "EIP-712 domain name: the requirements' `extra.name`" })),
  version: Type.Optional(Type.String({ description: "EIP-712 domain version: the requirements' `extra.version`" })),
  transferMethods: Type.Optional(
    Type.Array(Type.Union([Type.Literal('eip3009'), Type.Literal('permit2')]), {
      description:
        "EVM: how an agent may pay it, the requirements' `extra.assetTransferMethod`: an EIP-3009 token either way, any other ERC-20 through Permit2 (the payer having approved Permit2)",
    }),
  ),
});

const SupportedResponse = Type.Object(
  {
    kinds: Type.Array(
      Type.Object({
        x402Version: Type.Integer(),
        scheme: Type.String(),
        network: Type.String(),
        extra: Type.Object(
          {
            payTo: Type.String({
              description:
                "The requirements' `payTo`, the merchant's own, which the buyer's signature names, so a payload made for one merchant pays no other: on EVM networks the merchant's own address (the same on each); on Solana the merchant's own owner, whose associated token account of the mint is paid (the service creates it before answering)",
            }),
            feePayer: Type.Optional(
              Type.String({
                description: "Solana: the collector pays the transaction's fee; the requirements' `extra.feePayer`",
              }),
            ),
            assets: Type.Array(SupportedAsset),
          },
          { description: 'What the requirements of a payment on this network must name' },
        ),
      }),
    ),
    extensions: Type.Array(Type.String()),
    signers: Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'The accounts that send the settling transactions, by CAIP family',
    }),
  },
  { description: "x402's `SupportedResponse`" },
);

/**
 * The networks on which the service takes x402 payments, with their stablecoins: EVM networks it follows with
 * ERC-20 stablecoins (EIP-3009 tokens, and others, EIP-2612 tokens among them, through Permit2), and Solana networks
 * with SPL tokens.
 */
function x402Tokens(ctx: AppContext): { network: NetworkInfo; tokens: TokenInfo[] }[] {
  // An EIP-2612 token is paid like any other ERC-20 here: x402's `exact` scheme has no EIP-2612 transfer of its own.
  const methods = { eip155: ['eip3009', 'eip2612', 'permit2'], solana: ['spl'] } as const;
  return ctx.chains.networks
    .filter((network) => network.rpcUrl)
    .map((network) => ({
      network,
      tokens: network.tokens.filter(
        (token) => (methods[network.namespace] as readonly string[]).includes(token.method) && token.peggedTo,
      ),
    }))
    .filter(({ tokens }) => tokens.length > 0);
}

/**
 * The token as the requirements name it; on EVM how it may be paid and, for an EIP-3009 token, its EIP-712 domain
 * (read once from the contract) unless its node fails.
 */
async function supportedAsset(services: ChainServices, network: NetworkInfo, token: TokenInfo) {
  const eip3009 = network.namespace === 'eip155' && token.method === 'eip3009';
  const domain = eip3009
    ? await services.evm.eip3009Token(services.evm.clients.for(network), token).catch(() => undefined)
    : undefined;
  return {
    asset: token.address,
    symbol: token.symbol,
    decimals: token.decimals,
    peggedTo: token.peggedTo as string,
    ...(domain ? { name: domain.name, version: domain.version } : {}),
    ...(network.namespace === 'eip155'
      ? { transferMethods: eip3009 ? ['eip3009' as const, 'permit2' as const] : ['permit2' as const] }
      : {}),
  };
}

export function registerListX402Supported(app: App, ctx: AppContext): void {
  app.get(
    '/v1/x402/supported',
    {
      config: { auth: { scope: 'x402' } },
      onRequest: requireMerchantIdHeader,
      schema: {
        tags: ['x402'],
        summary: 'x402 facilitator: what it settles for the merchant',
        description:
          "x402's supported kinds for the merchant in `Merchant-Id`: the `exact` scheme (x402 version 2) on each network the service follows that has stablecoins it takes (on EVM networks EIP-3009 tokens, and any of its ERC-20 stablecoins through Permit2; SPL tokens on Solana), with the address the merchant's payments must be paid to (`extra.payTo`, the merchant's own, which the buyer's signature then names, so verify and settle refuse a payload made for another merchant with `invalid_exact_evm_recipient_mismatch`, `invalid_permit2_recipient_mismatch` or `invalid_exact_svm_payload_recipient_mismatch`: on EVM networks its own address, on Solana its own owner, whose associated token account of each token the service creates before answering; on Solana the collector is the fee payer, `extra.feePayer`) and the tokens (`extra.assets`, on EVM with how each may be paid and the EIP-3009 tokens' EIP-712 domains); `signers` names the collectors, which send or co-sign the settling transactions. What reaches a merchant's address or token account is swept to the collector.",
        headers: MerchantIdHeader,
        response: { 200: SupportedResponse, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const merchant = await liveMerchantOfRequest(ctx, request);
      const services = chainServicesOf(ctx);
      const kinds = await Promise.all(
        x402Tokens(ctx).map(async ({ network, tokens }) => {
          const payTo = x402PayTo(services, merchant.id, network.namespace);
          const solana = network.namespace === 'solana';
          const [assets] = await Promise.all([
            Promise.all(tokens.map((token) => supportedAsset(services, network, token))),
            // An x402 SVM transaction cannot create the account it pays, so it exists before a buyer is told to pay it.
            solana &&
              services.solana.networks
                .get(network.caip2)
                ?.x402Accounts.ensure(merchant.id, tokens)
                .catch((error: unknown) => {
                  request.log.warn(`x402 token accounts of ${merchant.id}: ${(error as Error).message}`);
                }),
          ]);
          return {
            x402Version: X402_VERSION,
            scheme: 'exact',
            network: network.caip2,
            extra: { payTo, ...(solana ? { feePayer: services.solana.collector.address } : {}), assets },
          };
        }),
      );
      const signers = { 'eip155:*': [services.evm.collector], 'solana:*': [services.solana.collector.address] };
      return { kinds, extensions: [], signers };
    },
  );
}
