import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { verifyWebhookSignature } from '@paygate/client/webhooks';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { childEnv, PAYGATE_BIN, runCli, type ServerProcess, startServerProcess } from '../support/serverProcess.ts';

interface Delivery {
  body: string;
  signature: string | undefined;
  eventId: string | undefined;
}

/** A partner's local webhook receiver: records every POST and answers 200, or 500 for the events it is told to fail. */
async function startReceiver(failing: Set<string>): Promise<{ server: Server; url: string; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const eventId = request.headers['pay-event-id'] as string | undefined;
      deliveries.push({ body, signature: request.headers['pay-signature'] as string | undefined, eventId });
      response.statusCode = eventId && failing.has(JSON.parse(body).type) ? 500 : 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, deliveries };
}

/** `paygate webhooks listen` as a developer runs it, with its output collected. */
function startListening(args: string[], env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [PAYGATE_BIN, 'webhooks', 'listen', ...args], {
    env: childEnv(env),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

describe('paygate webhooks listen', () => {
  let service: ServerProcess;
  let apiKey: string;
  const running: Array<{ child: ChildProcessWithoutNullStreams }> = [];
  const servers: Server[] = [];

  beforeAll(async () => {
    service = await startServerProcess({ DATABASE_URL: inject('databaseUrl'), DEMO_PARTNER: 'never' });
    const created = await runCli(['partner', 'create', '--name', 'Listening partner'], {
      DATABASE_URL: inject('databaseUrl'),
    });
    expect(created.code, created.stderr).toBe(0);
    apiKey = JSON.parse(created.stdout).apiKey;
  }, 120_000);

  afterAll(async () => {
    for (const { child } of running) child.kill('SIGKILL');
    for (const server of servers) server.close();
    await service?.stop();
  });

  it("forwards the partner's events, signed with the printed secret, to a local URL and prints each with its answer", async () => {
    const receiver = await startReceiver(new Set(['payment.cancelled']));
    servers.push(receiver.server);
    const listen = startListening(['--forward-to', receiver.url], { BASE_URL: service.url, PAYGATE_API_KEY: apiKey });
    running.push(listen);
    await expect.poll(listen.stderr, { timeout: 30_000 }).toContain('Ready: forwarding events');
    const secret = /signing secret is (whsec_[0-9a-f]+)/.exec(listen.stderr())?.[1];
    expect(secret).toBeDefined();

    const merchant = await createMerchant(service, apiKey);
    const payment = await createPayment(service, apiKey, merchant.id);
    const cancel = await fetch(`${service.url}/v1/payments/${payment.paymentId}/cancel`, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'merchant-id': merchant.id, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(cancel.status).toBe(200);

    await expect.poll(() => receiver.deliveries.length, { timeout: 15_000 }).toBe(2);
    const events = receiver.deliveries.map((delivery) => JSON.parse(delivery.body));
    expect(events.map((event) => [event.type, event.data.object.paymentId])).toEqual([
      ['payment.created', payment.paymentId],
      ['payment.cancelled', payment.paymentId],
    ]);
    for (const delivery of receiver.deliveries) {
      expect(delivery.eventId).toBe(JSON.parse(delivery.body).id);
      expect(verifyWebhookSignature({ payload: delivery.body, header: delivery.signature, secret: secret! })).toBe(
        true,
      );
      expect(
        verifyWebhookSignature({ payload: delivery.body, header: delivery.signature, secret: 'whsec_wrong' }),
      ).toBe(false);
    }
    await expect
      .poll(listen.stdout, { timeout: 5_000 })
      .toMatch(/payment\.cancelled {2}evt_\S+ {2}-> POST \S+ \[500\]/);
    expect(listen.stdout()).toMatch(new RegExp(`payment\\.created {2}${events[0].id} {2}-> POST \\S+ \\[200\\]`));

    listen.child.kill('SIGINT');
    expect(await listen.exited).toBe(0);
  });

  it('says why when the key is refused, and exits 1', async () => {
    const listen = startListening(['--forward-to', 'http://127.0.0.1:9/hooks', '--api-key', 'sk_not-a-real-key'], {
      BASE_URL: service.url,
    });
    running.push(listen);
    expect(await listen.exited).toBe(1);
    expect(listen.stderr()).toContain('the service refused the event stream: 401 invalid_api_key');
  });

  it('asks for a key when none is given, and for a URL it can post to', async () => {
    const noKey = startListening(['--forward-to', 'http://127.0.0.1:9/hooks'], { BASE_URL: service.url });
    running.push(noKey);
    expect(await noKey.exited).toBe(1);
    expect(noKey.stderr()).toContain('--api-key or PAYGATE_API_KEY');
    const badUrl = startListening(['--forward-to', 'ftp://127.0.0.1/hooks', '--api-key', apiKey], {
      BASE_URL: service.url,
    });
    running.push(badUrl);
    expect(await badUrl.exited).toBe(1);
    expect(badUrl.stderr()).toContain('--forward-to must be an http:// or https:// URL');
  });
});
