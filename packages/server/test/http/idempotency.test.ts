import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../src/http/errors.ts';
import { runIdempotently } from '../../src/http/idempotency.ts';
import { createPartner } from '../../src/partners/partners.ts';
import { type ServerProcess, startTwoServerProcesses } from '../support/serverProcess.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';

const body = { merchantName: 'Concurrent Shop', merchantEmail: 'race@concurrent.shop' };

function create(server: { url: string }, apiKey: string, key: string, requestBody: unknown = body) {
  return call(server, '/v1/merchants', {
    method: 'POST',
    headers: { 'api-key': apiKey, 'idempotency-key': key },
    body: requestBody,
  });
}

async function merchantsNamed(server: TestServer, partnerId: string): Promise<number> {
  const rows = await server.db.selectFrom('merchants').select('id').where('partner_id', '=', partnerId).execute();
  return rows.length;
}

describe('Idempotency-Key under concurrency', () => {
  let server: TestServer;
  let partner: TestPartner;

  beforeAll(async () => {
    server = await startTestServer();
    partner = await newPartner(server.db);
  });
  afterAll(() => server.close());

  it('50 concurrent creates with one key and body make one merchant and 50 identical responses', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => create(server, partner.apiKey, 'fifty')));
    expect(new Set(results.map((result) => result.status))).toEqual(new Set([201]));
    expect(new Set(results.map((result) => result.text)).size).toBe(1);
    expect(await merchantsNamed(server, partner.partnerId)).toBe(1);
  });

  it('the same key with another body is 409 idempotency_conflict, even concurrently', async () => {
    const results = await Promise.all([
      create(server, partner.apiKey, 'mixed'),
      create(server, partner.apiKey, 'mixed', { ...body, merchantName: 'Different' }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual([201, 409]);
    expect(results.find((result) => result.status === 409)?.body.code).toBe('idempotency_conflict');
  });

  it('a request waits for the first one with its key at most the wait bound, then gets 409 and leaves it alone', async () => {
    const request = { partnerId: partner.partnerId, scope: 'test slow work', key: 'slow', fingerprint: { a: 1 } };
    let firstDone = false;
    const first = runIdempotently(server.db, request, async () => {
      await sleep(1_500);
      return { status: 201, body: '{"made":1}' };
    }).finally(() => {
      firstDone = true;
    });
    await sleep(200);
    const second = await runIdempotently(server.db, request, async () => ({ status: 201, body: '{"made":2}' }), {
      waitMs: 300,
    })
      .then(() => null)
      .catch((error: unknown) => error);
    expect(second).toBeInstanceOf(ApiError);
    expect((second as ApiError).code).toBe('idempotency_conflict');
    // Answered while the first still held the key: it gave up waiting rather than waiting for it.
    expect(firstDone).toBe(false);
    expect(await first).toEqual({ status: 201, body: '{"made":1}' });
    // Once the first is done, the key replays its response.
    expect(await runIdempotently(server.db, request, async () => ({ status: 201, body: '{"made":3}' }))).toEqual({
      status: 201,
      body: '{"made":1}',
      replayed: true,
    });
  });

  it('replays the answer the work gave, whether it was the one anticipated with the claim or another', async () => {
    const anticipated = { status: 201, body: '{"made":"as anticipated"}' };
    const request = (key: string) => ({
      partnerId: partner.partnerId,
      scope: 'test anticipated',
      key,
      fingerprint: {},
    });
    expect(
      await runIdempotently(server.db, request('as-anticipated'), async () => anticipated, { anticipated }),
    ).toEqual(anticipated);
    const other = { status: 200, body: '{"made":"otherwise"}' };
    expect(await runIdempotently(server.db, request('otherwise'), async () => other, { anticipated })).toEqual(other);
    const never = async () => ({ status: 500, body: 'ran twice' });
    expect(await runIdempotently(server.db, request('as-anticipated'), never, { anticipated })).toEqual({
      ...anticipated,
      replayed: true,
    });
    expect(await runIdempotently(server.db, request('otherwise'), never, { anticipated })).toEqual({
      ...other,
      replayed: true,
    });
    // A work that fails leaves no answer behind, anticipated or not: the key can be used again.
    const failing = runIdempotently(
      server.db,
      request('failing'),
      async () => {
        throw new ApiError('invalid_params', 'refused');
      },
      { anticipated },
    );
    await expect(failing).rejects.toBeInstanceOf(ApiError);
    expect(await runIdempotently(server.db, request('failing'), async () => other, { anticipated })).toEqual(other);
  });

  it('keys are per partner: another partner may use the same key', async () => {
    const other = await newPartner(server.db, 'Other');
    const mine = await create(server, partner.apiKey, 'shared-key');
    const theirs = await create(server, other.apiKey, 'shared-key');
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(mine.body.merchant.id).not.toBe(theirs.body.merchant.id);
  });
});

describe('Idempotency-Key across two server processes on one database', () => {
  let first: ServerProcess;
  let second: ServerProcess;
  let server: TestServer;

  beforeAll(async () => {
    [first, second] = await startTwoServerProcesses(inject('databaseUrl'));
    server = await startTestServer();
  });
  afterAll(async () => {
    await Promise.all([first.stop(), second.stop(), server.close()]);
  });

  it('50 concurrent creates split over both processes make one merchant', async () => {
    const partner = await createPartner(server.db, 'Two processes');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) => create(index % 2 ? first : second, partner.apiKey, 'across-processes')),
    );
    expect(new Set(results.map((result) => result.status))).toEqual(new Set([201]));
    expect(new Set(results.map((result) => result.text)).size).toBe(1);
    expect(await merchantsNamed(server, partner.partnerId)).toBe(1);
  });

  it('a process stops gracefully on SIGTERM', async () => {
    expect(await second.stop()).toBe(0);
  });
});
