import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import type { TestPartner, TestServer } from '../support/testServer.ts';

/** A fresh payment of the partner; each route's security tests act on it. */
async function paymentOf(server: TestServer, partner: TestPartner): Promise<string> {
  const merchant = await createMerchant(server, partner.apiKey);
  return (await createPayment(server, partner.apiKey, merchant.id)).paymentId;
}

// An account on a chain this server does not pay on: the options route answers without touching any chain.
const UNSUPPORTED_ACCOUNT = 'eip155:999999:0x1111111111111111111111111111111111111111';

runCommonRouteTests({
  name: 'GET /v1/gateway/payment/{id}',
  scope: 'gateway',
  allowApp: true,
  openToAllPartners: true,
  request: async (server, partner) => ({
    method: 'GET',
    path: `/v1/gateway/payment/${await paymentOf(server, partner)}`,
  }),
});

runCommonRouteTests({
  name: 'POST /v1/gateway/payment/{id}/options',
  scope: 'gateway',
  allowApp: true,
  openToAllPartners: true,
  request: async (server, partner) => ({
    method: 'POST',
    path: `/v1/gateway/payment/${await paymentOf(server, partner)}/options`,
    body: { accounts: [UNSUPPORTED_ACCOUNT] },
  }),
});

runCommonRouteTests({
  name: 'GET /v1/gateway/payment/{id}/status',
  scope: 'gateway',
  allowApp: true,
  openToAllPartners: true,
  request: async (server, partner) => ({
    method: 'GET',
    path: `/v1/gateway/payment/${await paymentOf(server, partner)}/status`,
  }),
});

runCommonRouteTests({
  name: 'POST /v1/gateway/payment/{id}/cancel',
  scope: 'gateway',
  allowApp: true,
  openToAllPartners: true,
  // Cancelling again returns the cancelled payment, so every credential check acts on the same one.
  request: async (server, partner) => ({
    method: 'POST',
    path: `/v1/gateway/payment/${await paymentOf(server, partner)}/cancel`,
    body: {},
  }),
});
