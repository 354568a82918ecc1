import { recordEvent } from '../../src/webhooks/events.ts';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { call, type TestPartner, type TestServer } from '../support/testServer.ts';

async function registerEndpoint(server: TestServer, partner: TestPartner): Promise<string> {
  const result = await call(server, '/v1/webhooks', {
    method: 'POST',
    headers: { 'api-key': partner.apiKey },
    body: { url: 'https://hooks.example.com/security', events: ['payment.succeeded'] },
  });
  if (result.status !== 201) throw new Error(`endpoint not registered: ${result.text}`);
  return result.body.webhook.id;
}

runCommonRouteTests({
  name: 'POST /v1/webhooks',
  scope: 'merchants',
  request: async () => ({
    method: 'POST',
    path: '/v1/webhooks',
    body: { url: 'https://hooks.example.com/security', events: ['payment.created'] },
  }),
});

runCommonRouteTests({
  name: 'GET /v1/webhooks',
  scope: 'merchants',
  request: async () => ({ method: 'GET', path: '/v1/webhooks' }),
});

runCommonRouteTests({
  name: 'DELETE /v1/webhooks/{id}',
  scope: 'merchants',
  ownedResource: true,
  // An accepted request deletes its endpoint, so every request the shared checks send names a fresh one.
  request: async (server, partner) => {
    const endpoints: string[] = [];
    for (let index = 0; index < 19; index += 1) endpoints.push(await registerEndpoint(server, partner));
    return {
      method: 'DELETE',
      get path() {
        return `/v1/webhooks/${endpoints.length > 1 ? endpoints.shift() : endpoints[0]}`;
      },
    };
  },
});

runCommonRouteTests({
  name: 'GET /v1/webhooks/{id}/deliveries',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => ({
    method: 'GET',
    path: `/v1/webhooks/${await registerEndpoint(server, partner)}/deliveries`,
  }),
});

runCommonRouteTests({
  name: 'POST /v1/events/{id}/redeliver',
  scope: 'merchants',
  ownedResource: true,
  request: async (server, partner) => {
    const eventId = await server.db
      .transaction()
      .execute((trx) =>
        recordEvent(trx, { partnerId: partner.partnerId, merchantId: null, type: 'payment.created', object: {} }),
      );
    return { method: 'POST', path: `/v1/events/${eventId}/redeliver`, body: {} };
  },
});
