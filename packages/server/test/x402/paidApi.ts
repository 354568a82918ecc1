import type { AddressInfo } from 'node:net';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client';
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import express from 'express';
import type { Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { X402Testbed } from './support.ts';

export interface PaidApi {
  url: string;
  close(): Promise<void>;
}

/** What the paid route charges: token minor units of `asset`, with the requirements' `extra` as x402's server sends it. */
export interface RoutePrice {
  amount: string;
  asset: Address;
  extra: Record<string, unknown>;
}

/**
 * A merchant's API built with x402's own Express middleware, its facilitator paygate: `GET /weather` costs `price`,
 * paid to the merchant's own address (its payTo, swept to paygate's collector), and each settled payment is a payment
 * of the merchant.
 */
export async function startPaidApi(testbed: X402Testbed, price: RoutePrice): Promise<PaidApi> {
  const headers = testbed.headers();
  const facilitator = new HTTPFacilitatorClient({
    url: testbed.facilitatorUrl,
    createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
  });
  const resourceServer = new x402ResourceServer(facilitator).register(
    testbed.network as `${string}:${string}`,
    new ExactEvmServerScheme(),
  );
  const app = express();
  app.use(
    paymentMiddleware(
      {
        'GET /weather': {
          accepts: {
            scheme: 'exact',
            network: testbed.network as `${string}:${string}`,
            payTo: testbed.payTo,
            price,
          },
          description: 'Weather now',
          mimeType: 'application/json',
        },
      },
      resourceServer,
    ),
  );
  app.get('/weather', (_request, response) => {
    response.json({ weather: 'sunny', temperature: 21 });
  });
  const listening = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => listening.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => listening.close(() => resolve())),
  };
}

/** x402's own client paying with a devnet buyer's key, allowed to spend `asset` only. */
export function buyerClient(testbed: X402Testbed, buyer: string, asset: Address): x402Client {
  const key = testbed.service.devnet.manifest.buyers.find((candidate) => candidate.name === buyer)?.evmPrivateKey;
  if (!key) throw new Error(`no devnet buyer ${buyer}`);
  const network = testbed.network as `${string}:${string}`;
  return new x402Client()
    .register(network, new ExactEvmClientScheme(privateKeyToAccount(key)))
    .setSpendControls({ allowedAssets: [{ network, asset }] });
}

/** x402's own fetch wrapper paying `asset` as `buyer`; it records the headers of what it sends. */
export function payingFetch(testbed: X402Testbed, buyer: string, asset: Address) {
  const sent: Headers[] = [];
  const recording: typeof fetch = (input, init) => {
    sent.push(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)));
    return fetch(input, init);
  };
  return { fetch: wrapFetchWithPayment(recording, buyerClient(testbed, buyer, asset)), sent };
}

/** What a 402 answer asks for, read as x402's client reads it. */
export function paymentRequiredOf(response: Response) {
  return new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((name) => response.headers.get(name));
}
