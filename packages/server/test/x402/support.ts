import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PERMIT2_ADDRESS, startDevnet } from '@paygate/devnet';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes, ExactEvmScheme, permit2WitnessTypes, x402ExactPermit2ProxyAddress } from '@x402/evm';
import { type Address, createPublicClient, erc20Abi, getAddress, type Hex, http, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { ChainFollowers } from '../../src/chains/chainFollowers.ts';
import { type CollectorKeys, collectorAddresses } from '../../src/chains/collectorKeys.ts';
import { networksFromDevnet } from '../../src/chains/devnetNetworks.ts';
import { FixedPriceSource } from '../../src/chains/prices/fixedPriceSource.ts';
import { ChainRegistry, type NetworkInfo } from '../../src/chains/registry.ts';
import { connect } from '../../src/db/database.ts';
import { recordFunding } from '../../src/ledger/funding.ts';
import { createChainServices } from '../../src/composition/createChainServices.ts';
import { PaymentSubmissions } from '../../src/gateway/paymentSubmissions.ts';
import { createApiKey } from '../../src/partners/partners.ts';
import { TEST_PRICES } from '../gateway/support/gatewayTestbed.ts';
import type { DevnetService } from '../support/devnetService.ts';
import { createMerchant } from '../support/fixtures.ts';
import { createIsolatedDatabase } from '../support/isolatedDatabase.ts';
import { call, type CallResult, newPartner, startTestServer, type TestPartner } from '../support/testServer.ts';

/**
 * Solana Devnet's CAIP-2 id, which a testbed may follow the local devnet's Solana node as (its own id is its genesis
 * hash) so that x402's own client pays it. That client cannot be given another network: in `@x402/svm` 2.27.0,
 * `ExactSvmScheme.createPaymentPayload` (src/exact/client/scheme.ts) reads the chain through `createRpcClient`
 * (src/utils.ts), which first calls `normalizeNetwork` (src/constants.ts), and that throws `Unsupported SVM network`
 * for any id but Solana mainnet's, devnet's and testnet's; the client's config (`ClientSvmConfig`) sets only the
 * `rpcUrl`, not the id, and the package has no way to register a network.
 */
export const SOLANA_DEVNET_CAIP2 = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

/** The network under another CAIP-2 id, its tokens' ids with it. */
function relabelled(network: NetworkInfo, caip2: string): NetworkInfo {
  return {
    ...network,
    caip2,
    tokens: network.tokens.map((token) => ({
      ...token,
      chain: caip2,
      caip19: `${caip2}${token.caip19.slice(network.caip2.length)}`,
    })),
  };
}

/**
 * As `startDevnetService` (a devnet with a funded collector, a database of its own, the chain services with their
 * followers and submissions, the service on a socket), with the devnet's Solana network followed as `solanaCaip2`.
 */
async function startDevnetServiceAs(
  solanaCaip2: string | undefined,
  buyerTransferDeadlineMs: number | undefined,
  env: Record<string, string> | undefined,
): Promise<DevnetService> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-x402-devnet-'));
  const devnet = await startDevnet({ dataDir });
  const database = await createIsolatedDatabase();
  const networks = networksFromDevnet(devnet.manifest).map((network) =>
    network.namespace === 'solana' && solanaCaip2 ? relabelled(network, solanaCaip2) : network,
  );
  const chains = new ChainRegistry(networks);
  const keys: CollectorKeys = { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') };
  const collector = await collectorAddresses(keys);
  const funded = await devnet.fund({ evm: [collector.evm], solana: [collector.solana] });
  const servicesDb = connect(database.url, 4);
  // The faucet's credit is the operator's funding in the ledger, so the ledger matches the chain from the start;
  // on Solana under the id the network is followed as.
  const solanaId = devnet.manifest.solana.caip2;
  await recordFunding(
    servicesDb,
    funded.map((credit) =>
      solanaCaip2 && credit.asset.startsWith(`${solanaId}/`)
        ? { ...credit, asset: `${solanaCaip2}${credit.asset.slice(solanaId.length)}` }
        : credit,
    ),
  );
  let serverUrl = '';
  const services = await createChainServices({
    db: servicesDb,
    networks: chains.networks,
    keys,
    prices: new FixedPriceSource(TEST_PRICES),
    baseUrl: () => serverUrl,
    ...(buyerTransferDeadlineMs ? { buyerTransferDeadlineMs } : {}),
  });
  const server = await startTestServer({
    databaseUrl: database.url,
    ...(env ? { env } : {}),
    context: { chains, chainServices: services },
  });
  serverUrl = server.url;
  const followers = new ChainFollowers(database.url, services.followers);
  const submissions = PaymentSubmissions.start(server.ctx);
  server.ctx.submissions = submissions;
  return {
    devnet,
    devnetDir: dataDir,
    chains,
    keys,
    services,
    server,
    databaseUrl: database.url,
    close: async () => {
      await followers.stop();
      await submissions.stop();
      await server.close();
      await servicesDb.destroy();
      await devnet.stop();
      await database.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** USDC on the devnet's first EVM chain, as x402 requirements name it. */
export interface X402Asset {
  address: Address;
  caip19: string;
  name: string;
  version: string;
  decimals: number;
}

/** A devnet token without EIP-3009 (the devnet's USDT), which x402 pays by Permit2. */
export interface X402Permit2Asset {
  address: Address;
  caip19: string;
  decimals: number;
}

/** The fields of a Permit2 payload's `permit2Authorization`, flattened: `from` names another owner than the signer. */
export type Permit2Fields = Partial<
  Record<'from' | 'token' | 'amount' | 'spender' | 'nonce' | 'deadline' | 'to' | 'validAfter', string>
>;

/**
 * A devnet service (workers running, the system clock: x402's client signs with the real time) with a partner, an
 * API key with the `x402` scope only, as a merchant's API would hold, and a merchant.
 */
export interface X402Testbed {
  service: DevnetService;
  partner: TestPartner;
  x402Key: string;
  merchantId: string;
  /** The facilitator's URL, as a resource server is configured with it. */
  facilitatorUrl: string;
  network: string;
  /** The service's collector on EVM networks, where payments end up once swept. */
  collector: Address;
  /** The merchant's own x402 address on EVM networks (`extra.payTo` of `GET /v1/x402/supported`). */
  payTo: Address;
  usdc: X402Asset;
  usdt: X402Permit2Asset;
  /** The headers a resource server sends: the x402 key and the merchant. */
  headers(merchantId?: string, apiKey?: string): Record<string, string>;
  /** Another merchant's payTo on the network, as `GET /v1/x402/supported` gives it to the resource server. */
  payToOf(headers: Record<string, string>): Promise<Address>;
  /** Requirements for `amount` USDC minor units, as x402's `exact` EVM server builds them. */
  requirements(amount: string, overrides?: Partial<PaymentRequirements>): PaymentRequirements;
  /** A payload signed by a devnet buyer with x402's own `exact` EVM client. */
  payload(buyer: string, requirements: PaymentRequirements): Promise<PaymentPayload>;
  /**
   * A payload of a `TransferWithAuthorization` with the given fields, signed by the buyer with x402's types (`from`
   * names another authoriser than the signer).
   */
  customPayload(
    buyer: string,
    requirements: PaymentRequirements,
    authorization: Partial<Record<'from' | 'to' | 'value' | 'validAfter' | 'validBefore' | 'nonce', string>>,
  ): Promise<PaymentPayload>;
  /** Requirements for `amount` USDT minor units paid by Permit2 (`extra.assetTransferMethod: "permit2"`). */
  permit2Requirements(amount: string, overrides?: Partial<PaymentRequirements>): PaymentRequirements;
  /**
   * A payload of a Permit2 `PermitWitnessTransferFrom` as x402's client builds it, with the given fields, signed by the
   * buyer with x402's witness types.
   */
  customPermit2Payload(
    buyer: string,
    requirements: PaymentRequirements,
    fields: Permit2Fields,
  ): Promise<PaymentPayload>;
  facilitator(
    operation: 'verify' | 'settle',
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    headers?: Record<string, string>,
  ): Promise<CallResult>;
  usdcBalance(address: string): Promise<bigint>;
  tokenBalance(token: Address, address: string): Promise<bigint>;
  buyerAddress(buyer: string): Address;
  close(): Promise<void>;
}

/**
 * `solanaCaip2`: the CAIP-2 id the devnet's Solana network is followed as (`SOLANA_DEVNET_CAIP2`);
 * `buyerTransferDeadlineMs`: how long a transfer into the collector waits for a record before it is judged.
 */
export async function startX402Testbed(
  options: {
    solanaCaip2?: string;
    buyerTransferDeadlineMs?: number;
    /** Configuration variables of the service, beside the testbed's. */
    env?: Record<string, string>;
  } = {},
): Promise<X402Testbed> {
  const service = await startDevnetServiceAs(options.solanaCaip2, options.buyerTransferDeadlineMs, options.env);
  const { server, devnet } = service;
  const partner = await newPartner(server.db, 'x402 partner');
  const { apiKey: x402Key } = await createApiKey(server.db, partner.partnerId, ['x402']);
  const merchantId = (await createMerchant(server, partner.apiKey)).id;
  const chain = devnet.manifest.evm[0];
  if (!chain) throw new Error('the devnet has no EVM chain');
  const headers = (merchant = merchantId, apiKey = x402Key) => ({ 'api-key': apiKey, 'merchant-id': merchant });
  const supportedKind = async (merchantHeaders: Record<string, string>) => {
    const supported = await call(server, '/v1/x402/supported', { headers: merchantHeaders });
    expect(supported.status, supported.text).toBe(200);
    return supported.body.kinds.find((candidate: { network: string }) => candidate.network === chain.caip2);
  };
  const kind = await supportedKind(headers());
  const listed = kind.extra.assets.find((asset: { symbol: string }) => asset.symbol === 'USDC');
  const token = chain.tokens.find((candidate) => candidate.symbol === 'USDC');
  if (!token) throw new Error('the devnet has no USDC');
  const usdc: X402Asset = {
    address: getAddress(listed.asset),
    caip19: token.caip19,
    name: listed.name,
    version: listed.version,
    decimals: listed.decimals,
  };
  const payTo = getAddress(kind.extra.payTo);
  const collector = getAddress(service.services.evm.collector);
  const account = (buyer: string) => {
    const found = devnet.manifest.buyers.find((candidate) => candidate.name === buyer);
    if (!found) throw new Error(`no devnet buyer ${buyer}`);
    return privateKeyToAccount(found.evmPrivateKey);
  };
  const usdtToken = chain.tokens.find((candidate) => candidate.symbol === 'USDT');
  if (!usdtToken) throw new Error('the devnet has no USDT');
  const usdt: X402Permit2Asset = {
    address: getAddress(usdtToken.address),
    caip19: usdtToken.caip19,
    decimals: usdtToken.decimals,
  };
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  const tokenBalance = (token: Address, address: string) =>
    client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] });
  const requirements = (amount: string, overrides: Partial<PaymentRequirements> = {}): PaymentRequirements => ({
    scheme: 'exact',
    network: chain.caip2 as PaymentRequirements['network'],
    asset: usdc.address,
    amount,
    payTo,
    maxTimeoutSeconds: 300,
    extra: { name: usdc.name, version: usdc.version },
    ...overrides,
  });
  return {
    service,
    partner,
    x402Key,
    merchantId,
    facilitatorUrl: `${server.url}/v1/x402`,
    network: chain.caip2,
    collector,
    payTo,
    usdc,
    usdt,
    headers,
    payToOf: async (merchantHeaders) => getAddress((await supportedKind(merchantHeaders)).extra.payTo),
    requirements,
    permit2Requirements: (amount, overrides = {}) =>
      requirements(amount, { asset: usdt.address, extra: { assetTransferMethod: 'permit2' }, ...overrides }),
    customPermit2Payload: async (buyer, accepted, fields) => {
      const signer = account(buyer);
      const now = Math.floor(Date.now() / 1000);
      const permit2Authorization = {
        from: fields.from ?? signer.address,
        permitted: { token: fields.token ?? accepted.asset, amount: fields.amount ?? accepted.amount },
        spender: fields.spender ?? x402ExactPermit2ProxyAddress,
        nonce: fields.nonce ?? BigInt(toHex(crypto.getRandomValues(new Uint8Array(32)))).toString(),
        deadline: fields.deadline ?? String(now + 300),
        witness: { to: fields.to ?? accepted.payTo, validAfter: fields.validAfter ?? '0' },
      };
      const signature = await signer.signTypedData({
        domain: { name: 'Permit2', chainId: chain.chainId, verifyingContract: PERMIT2_ADDRESS },
        types: permit2WitnessTypes,
        primaryType: 'PermitWitnessTransferFrom',
        message: {
          permitted: {
            token: getAddress(permit2Authorization.permitted.token),
            amount: BigInt(permit2Authorization.permitted.amount),
          },
          spender: getAddress(permit2Authorization.spender),
          nonce: BigInt(permit2Authorization.nonce),
          deadline: BigInt(permit2Authorization.deadline),
          witness: {
            to: getAddress(permit2Authorization.witness.to),
            validAfter: BigInt(permit2Authorization.witness.validAfter),
          },
        },
      });
      return { x402Version: 2, accepted, payload: { signature, permit2Authorization } } as PaymentPayload;
    },
    payload: async (buyer, accepted) => {
      const created = await new ExactEvmScheme(account(buyer)).createPaymentPayload(2, accepted);
      return { ...created, accepted, resource: { url: 'https://api.example.com/weather' } } as PaymentPayload;
    },
    customPayload: async (buyer, accepted, fields) => {
      const signer = account(buyer);
      const now = Math.floor(Date.now() / 1000);
      const authorization = {
        from: fields.from ?? signer.address,
        to: fields.to ?? accepted.payTo,
        value: fields.value ?? accepted.amount,
        validAfter: fields.validAfter ?? '0',
        validBefore: fields.validBefore ?? String(now + 300),
        nonce: fields.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
      };
      const signature = await signer.signTypedData({
        domain: {
          name: usdc.name,
          version: usdc.version,
          chainId: chain.chainId,
          verifyingContract: usdc.address,
        },
        types: authorizationTypes,
        primaryType: 'TransferWithAuthorization',
        message: {
          from: getAddress(authorization.from),
          to: getAddress(authorization.to),
          value: BigInt(authorization.value),
          validAfter: BigInt(authorization.validAfter),
          validBefore: BigInt(authorization.validBefore),
          nonce: authorization.nonce as Hex,
        },
      });
      return { x402Version: 2, accepted, payload: { authorization, signature } } as PaymentPayload;
    },
    facilitator: (operation, payload, accepted, extraHeaders = headers()) =>
      call(server, `/v1/x402/${operation}`, {
        method: 'POST',
        headers: extraHeaders,
        body: { x402Version: payload.x402Version, paymentPayload: payload, paymentRequirements: accepted },
      }),
    usdcBalance: (address) => tokenBalance(usdc.address, address),
    tokenBalance,
    buyerAddress: (buyer) => account(buyer).address,
    close: () => service.close(),
  };
}

/** The payment as the merchant's list shows it. */
export async function listedPayment(testbed: X402Testbed, paymentId: string): Promise<any> {
  const list = await call(testbed.service.server, '/v1/merchants/payments?limit=200', {
    headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': testbed.merchantId },
  });
  expect(list.status, list.text).toBe(200);
  return { item: list.body.data.find((item: { paymentId: string }) => item.paymentId === paymentId), list: list.body };
}
