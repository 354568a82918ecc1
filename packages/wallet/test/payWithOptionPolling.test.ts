import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../src/gatewayClient.ts';
import { payWithOption } from '../src/payWithOption.ts';
import type { PaymentStatus } from '../src/gatewayTypes.ts';
import { json, startScriptedServer, type ScriptedServer } from './support/scriptedServer.ts';

const PAYMENT_ID = 'pay_01JABCDEFGHJKMNPQRSTVWXYZ0';
const SOLANA_CHAIN = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const TX_ID = '5'.repeat(88);

let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const option = {
  id: 'opt_1',
  actions: [
    {
      type: 'walletRpc' as const,
      data: { chain_id: SOLANA_CHAIN, method: 'solana_signTransaction', params: '[{"transaction":"AQID"}]' },
    },
  ],
};
// Signing is not what these tests look at: the signer hands back a fixed value.
const signers = { solana: { signTransaction: async (transaction: string) => `signed:${transaction}` } };

describe('payWithOption status following', () => {
  it('long-polls the status with maxPollMs after waiting pollInMs, until final', async () => {
    server = await startScriptedServer([
      json(200, { status: 'processing', isFinal: false, pollInMs: 300, info: null }),
      json(200, { status: 'processing', isFinal: false, pollInMs: 200, info: null }),
      json(200, {
        status: 'succeeded',
        isFinal: true,
        info: { optionAmount: { unit: 'caip19/x', value: '1', display: null }, txId: TX_ID },
      }),
    ]);
    const seen: PaymentStatus[] = [];
    const result = await payWithOption({
      client: new GatewayClient({ baseUrl: server.baseUrl, auth: { apiKey: 'k' } }),
      paymentId: PAYMENT_ID,
      option,
      signers,
      maxPollMs: 5000,
      onStatus: (status) => seen.push(status),
    });

    expect(result).toEqual({
      status: 'succeeded',
      info: { optionAmount: { unit: 'caip19/x', value: '1', display: null }, txId: TX_ID },
    });
    expect(seen.map((status) => status.status)).toEqual(['processing', 'processing', 'succeeded']);
    const [confirm, firstStatus, secondStatus] = server.requests;
    expect([confirm!.method, confirm!.url]).toEqual([
      'POST',
      `/v1/gateway/payment/${PAYMENT_ID}/confirm?maxPollMs=5000`,
    ]);
    expect(JSON.parse(confirm!.body)).toEqual({
      optionId: 'opt_1',
      results: [{ type: 'walletRpc', data: ['signed:AQID'] }],
    });
    expect([firstStatus!.method, firstStatus!.url]).toEqual([
      'GET',
      `/v1/gateway/payment/${PAYMENT_ID}/status?maxPollMs=5000`,
    ]);
    expect(firstStatus!.at - confirm!.at).toBeGreaterThanOrEqual(295);
    expect(secondStatus!.at - firstStatus!.at).toBeGreaterThanOrEqual(195);
  });

  it('returns the final failure with its code, and sends collectedData with the confirm', async () => {
    server = await startScriptedServer([
      json(200, { status: 'failed', isFinal: true, info: null, failureCode: 'declined_user' }),
    ]);
    const collectedData = { fields: [{ id: 'fullName', value: 'Ada Lovelace' }] };
    const result = await payWithOption({
      client: new GatewayClient({ baseUrl: server.baseUrl, auth: { apiKey: 'k' } }),
      paymentId: PAYMENT_ID,
      option,
      signers,
      collectedData,
    });
    expect(result).toEqual({ status: 'failed', failureCode: 'declined_user' });
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({ collectedData });
  });
});
