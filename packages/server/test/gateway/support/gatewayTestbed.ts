import type { Devnet, DevnetBuyer } from '@paygate/devnet';
import {
  createKeyPairFromBytes,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransaction,
} from '@solana/kit';
import { createWalletClient, defineChain, type Hex, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import type { CollectorKeys } from '../../../src/chains/collectorKeys.ts';
import type { ChainRegistry } from '../../../src/chains/registry.ts';
import type { AppContext } from '../../../src/context.ts';
import type { ChainServices } from '../../../src/gateway/chainServices.ts';
import { PaymentSubmissions, type PaymentSubmissionsOptions } from '../../../src/gateway/paymentSubmissions.ts';
import { ChainFollowers } from '../../../src/chains/chainFollowers.ts';
import type { Workers } from '../../../src/jobs/queue.ts';
import { createApp } from '../../../src/partners/partners.ts';
import { createMerchant, createPayment } from '../../support/fixtures.ts';
import { ManualClock } from '../../support/manualClock.ts';
import { startDevnetService } from '../../support/devnetService.ts';
import { call, type CallResult, newPartner, type TestPartner, type TestServer } from '../../support/testServer.ts';

/** Example prices of the tokens that are not pegged to the payment's currency. */
export const TEST_PRICES = {
  'EURC/USD': '1.087',
  'USDC/EUR': '0.92',
  'USDT/EUR': '0.92',
  'ETH/USD': '3000',
  'ETH/EUR': '2760',
  'WETH/USD': '3000',
};

/** What a wallet does with `eth_signTypedData_v4`: parse `[from, typedDataJson]` and sign the typed data. */
export async function signTypedDataAsWallet(privateKey: `0x${string}`, params: string): Promise<string> {
  const [from, json] = JSON.parse(params) as [string, string];
  const account = privateKeyToAccount(privateKey);
  expect(from.toLowerCase()).toBe(account.address.toLowerCase());
  return account.signTypedData(JSON.parse(json));
}

/** A signature of the same typed data by a key that is not the buyer's. */
export function signTypedDataAsStranger(params: string): Promise<string> {
  const [, json] = JSON.parse(params) as [string, string];
  return privateKeyToAccount(generatePrivateKey()).signTypedData(JSON.parse(json));
}

/** What a wallet does with `eth_sendTransaction`: parse `[{from, to, data?, value?}]`, sign and send it, return the hash. */
export async function sendTransactionAsWallet(
  privateKey: `0x${string}`,
  chain: { chainId: number; rpcUrl: string },
  params: string,
): Promise<Hex> {
  const [request] = JSON.parse(params) as [{ from: string; to: Hex; data?: Hex; value?: Hex }];
  const account = privateKeyToAccount(privateKey);
  expect(request.from.toLowerCase()).toBe(account.address.toLowerCase());
  const devnetChain = defineChain({
    id: chain.chainId,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
  const wallet = createWalletClient({ account, chain: devnetChain, transport: http(chain.rpcUrl) });
  return wallet.sendTransaction({
    to: request.to,
    ...(request.data ? { data: request.data } : {}),
    ...(request.value ? { value: BigInt(request.value) } : {}),
  });
}

/** What a wallet does with `solana_signTransaction`: unwrap `[{transaction}]`, add its signature, return the whole transaction. */
export async function signSolanaAsWallet(secretKeyBase58: string, params: string): Promise<string> {
  const [{ transaction }] = JSON.parse(params) as [{ transaction: string }];
  const keyPair = await createKeyPairFromBytes(new Uint8Array(getBase58Encoder().encode(secretKeyBase58)));
  const decoded = getTransactionDecoder().decode(getBase64Encoder().encode(transaction));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([keyPair], decoded));
}

/** A partner beside the testbed's own, with its own merchant and wallet app, on the same service. */
export interface OtherPartner {
  partner: TestPartner;
  merchantId: string;
  newPayment(body?: Record<string, unknown>): ReturnType<typeof createPayment>;
  /** A gateway call with this partner's wallet app. */
  gateway(paymentId: string, suffix: string, body?: unknown): Promise<CallResult>;
}

export interface GatewayTestbed {
  devnet: Devnet;
  chains: ChainRegistry;
  keys: CollectorKeys;
  services: ChainServices;
  server: TestServer;
  databaseUrl: string;
  partner: TestPartner;
  merchantId: string;
  walletHeaders: Record<string, string>;
  clock: ManualClock;
  buyer(name: string): DevnetBuyer;
  evmChain(): string;
  evmAccount(name: string): string;
  solanaAccount(name: string): string;
  gateway(paymentId: string, suffix: string, body?: unknown): Promise<CallResult>;
  newPayment(body?: Record<string, unknown>): ReturnType<typeof createPayment>;
  listed(paymentId: string): Promise<any>;
  /** The gateway status once the payment is final, long-polling for it. */
  finalStatus(paymentId: string): Promise<any>;
  otherPartner(name: string): Promise<OtherPartner>;
  /** Runs the payment submissions and chain followers, with the testbed's chains and services unless others are given. */
  startWorkers(
    overrides?: Pick<AppContext, 'chains' | 'chainServices'>,
    submissions?: PaymentSubmissionsOptions,
  ): Promise<Workers>;
  /** Stops every worker the testbed runs. */
  stopWorkers(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A devnet, a database of its own (so no other test file's workers take these jobs), chain services with a
 * manual clock, and a service on a socket with a partner, a merchant and a wallet app. Workers run only when the
 * test starts them, so a test can choose with which chain services payments are submitted.
 */
export async function startGatewayTestbed(
  options: {
    workers?: boolean;
    submitMaxAttempts?: number;
    buyerTransferDeadlineMs?: number;
    confirmations?: number;
    /** Configuration variables of the service, beside the testbed's. */
    env?: Record<string, string>;
  } = {},
): Promise<GatewayTestbed> {
  const clock = new ManualClock();
  const { devnet, chains, keys, services, server, databaseUrl, close } = await startDevnetService({
    prices: TEST_PRICES,
    clock,
    workers: false,
    ...(options.submitMaxAttempts ? { submitMaxAttempts: options.submitMaxAttempts } : {}),
    ...(options.buyerTransferDeadlineMs ? { buyerTransferDeadlineMs: options.buyerTransferDeadlineMs } : {}),
    ...(options.confirmations ? { confirmations: options.confirmations } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const partner = await newPartner(server.db);
  const merchantId = (await createMerchant(server, partner.apiKey)).id;
  const app = await createApp(server.db, partner.partnerId, 'Test Wallet', 'https://wallet.example/icon.png');
  const walletHeaders = { 'app-id': app.appId, 'client-id': 'device-1' };
  const running: Workers[] = [];
  const gatewayCall = (headers: Record<string, string>) => (paymentId: string, suffix: string, body?: unknown) =>
    call(
      server,
      `/v1/gateway/payment/${paymentId}${suffix}`,
      body === undefined ? { headers } : { method: 'POST', headers, body },
    );

  const buyer = (name: string) => {
    const found = devnet.manifest.buyers.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no devnet buyer ${name}`);
    return found;
  };
  const evmChain = () => devnet.manifest.evm[0]!.caip2;
  const testbed: GatewayTestbed = {
    devnet,
    chains,
    keys,
    services,
    server,
    databaseUrl,
    partner,
    merchantId,
    walletHeaders,
    clock,
    buyer,
    evmChain,
    evmAccount: (name) => `${evmChain()}:${buyer(name).evmAddress}`,
    solanaAccount: (name) => `${devnet.manifest.solana.caip2}:${buyer(name).solanaAddress}`,
    gateway: gatewayCall(walletHeaders),
    newPayment: (body = {}) => createPayment(server, partner.apiKey, merchantId, body),
    listed: async (paymentId) => {
      const list = await call(server, '/v1/merchants/payments?limit=200', {
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      });
      expect(list.status, list.text).toBe(200);
      return list.body.data.find((item: { paymentId: string }) => item.paymentId === paymentId);
    },
    finalStatus: async (paymentId) => {
      for (;;) {
        const status = await gatewayCall(walletHeaders)(paymentId, '/status?maxPollMs=25000');
        expect(status.status, status.text).toBe(200);
        if (status.body.isFinal) return status.body;
      }
    },
    otherPartner: async (name) => {
      const other = await newPartner(server.db, name);
      const otherMerchantId = (
        await createMerchant(server, other.apiKey, {
          merchantName: `${name} shop`,
          merchantEmail: 'owner@other-shop.com',
        })
      ).id;
      return {
        partner: other,
        merchantId: otherMerchantId,
        newPayment: (body = {}) => createPayment(server, other.apiKey, otherMerchantId, body),
        gateway: gatewayCall({ 'app-id': other.appId, 'client-id': 'device-2' }),
      };
    },
    startWorkers: async (overrides, submissionOptions) => {
      const submissions = PaymentSubmissions.start({ ...server.ctx, ...overrides }, submissionOptions);
      // The confirm route hands payments to these submissions, with these chain services.
      server.ctx.submissions = submissions;
      const followers = new ChainFollowers(databaseUrl, (overrides?.chainServices ?? services).followers);
      const workers = {
        stop: async () => {
          if (server.ctx.submissions === submissions) delete server.ctx.submissions;
          await Promise.all([submissions.stop(), followers.stop()]);
        },
      };
      running.push(workers);
      return workers;
    },
    stopWorkers: async () => {
      for (const workers of running.splice(0)) await workers.stop();
    },
    close: async () => {
      await testbed.stopWorkers();
      await close();
    },
  };
  if (options.workers !== false) await testbed.startWorkers();
  return testbed;
}
