import { type KyselyPlugin, type PluginTransformResultArgs, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Db } from '../../src/db/database.ts';
import { DatabaseNotifications } from '../../src/db/notifications.ts';
import { newId } from '../../src/ids.ts';
import { MERCHANT_CHANGED_CHANNEL, MerchantCache } from '../../src/merchants/merchantCache.ts';
import { BASE_ACCOUNT, BASE_USDC, createMerchant } from '../support/fixtures.ts';
import { runCli, type ServerProcess, startServerProcess } from '../support/serverProcess.ts';
import { call, expectErrorBody, newPartner, type TestPartner } from '../support/testServer.ts';

/** Holds query results on their way back to the caller, so a test can act between a read and its use. */
class HeldResults implements KyselyPlugin {
  private pending: { reached: () => void; released: Promise<void> } | undefined;

  /** The next query's result is held: `reached` once PostgreSQL has answered, until `release()`. */
  holdNext(): { reached: Promise<void>; release(): void } {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let reached = () => {};
    const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
    this.pending = { reached, released };
    return { reached: reachedPromise, release };
  }

  transformQuery: KyselyPlugin['transformQuery'] = (args) => args.node;

  async transformResult(args: PluginTransformResultArgs) {
    const pending = this.pending;
    this.pending = undefined;
    if (pending) {
      pending.reached();
      await pending.released;
    }
    return args.result;
  }
}

/** Resolves when a notification about `merchantId` has been passed to every subscriber subscribed before this one. */
class NotificationWatch {
  private readonly waiting = new Map<string, () => void>();
  notification(merchantId: string): void {
    this.waiting.get(merchantId)?.();
    this.waiting.delete(merchantId);
  }
  next(merchantId: string): Promise<void> {
    return new Promise((resolve) => this.waiting.set(merchantId, resolve));
  }
}

async function insertMerchant(db: Db, partnerId: string, id = newId('mrch')): Promise<string> {
  await db
    .insertInto('merchants')
    .values({ id, partner_id: partnerId, name: 'Cached Shop', email: 'cache@shop.com' })
    .execute();
  return id;
}

describe('merchant cache on a real database', () => {
  let db: Db;
  let partner: TestPartner;
  const rename = (id: string, name: string) => db.updateTable('merchants').set({ name }).where('id', '=', id).execute();

  beforeAll(async () => {
    db = connect(inject('databaseUrl'), 4);
    partner = await newPartner(db, 'Cache partner');
  });
  afterAll(() => db.destroy());

  it('serves from memory only while listening, and never remembers unknown ids', async () => {
    const id = await insertMerchant(db, partner.partnerId);
    const cache = new MerchantCache(db, { ttlMs: 60_000 });
    await cache.get(id);
    await cache.get(id);
    expect(cache.reads).toEqual({ memory: 0, database: 2 });

    cache.listening(true);
    expect((await cache.get(id))?.name).toBe('Cached Shop');
    expect((await cache.get(id))?.name).toBe('Cached Shop');
    expect(cache.reads).toEqual({ memory: 1, database: 3 });
    expect(await cache.get('mrch_unknown')).toBeUndefined();
    expect(await cache.get('mrch_unknown')).toBeUndefined();
    expect(cache.reads).toEqual({ memory: 1, database: 5 });

    cache.listening(false);
    await rename(id, 'Renamed while not listening');
    expect((await cache.get(id))?.name).toBe('Renamed while not listening');
    expect(cache.reads).toEqual({ memory: 1, database: 6 });
  });

  it('serves an entry for ttlMs at most, and keeps at most maxEntries, dropping the oldest', async () => {
    let now = 1_000_000;
    const cache = new MerchantCache(db, { ttlMs: 5_000, maxEntries: 2, now: () => now });
    cache.listening(true);
    const [first, second, third] = [
      await insertMerchant(db, partner.partnerId),
      await insertMerchant(db, partner.partnerId),
      await insertMerchant(db, partner.partnerId),
    ];
    await cache.get(first);
    now += 4_999;
    await cache.get(first);
    expect(cache.reads).toEqual({ memory: 1, database: 1 });
    now += 1;
    await cache.get(first);
    expect(cache.reads).toEqual({ memory: 1, database: 2 });

    await cache.get(second);
    await cache.get(third);
    await cache.get(third);
    await cache.get(second);
    expect(cache.reads).toEqual({ memory: 3, database: 4 });
    await cache.get(first);
    expect(cache.reads).toEqual({ memory: 3, database: 5 });
  });

  it('a change by any writer is notified and drops the entry; a load that read before it is not stored', async () => {
    const held = new HeldResults();
    const cache = new MerchantCache(db.withPlugin(held), { ttlMs: 60_000 });
    const watch = new NotificationWatch();
    const notifications = new DatabaseNotifications(inject('databaseUrl'));
    notifications.subscribe(MERCHANT_CHANGED_CHANNEL, cache);
    notifications.subscribe(MERCHANT_CHANGED_CHANNEL, watch);
    await notifications.start();
    try {
      const id = newId('mrch');
      const inserted = watch.next(id);
      await insertMerchant(db, partner.partnerId, id);
      await inserted;

      expect((await cache.get(id))?.name).toBe('Cached Shop');
      expect((await cache.get(id))?.name).toBe('Cached Shop');
      expect(cache.reads).toEqual({ memory: 1, database: 1 });
      const updated = watch.next(id);
      await rename(id, 'Renamed elsewhere');
      await updated;
      expect((await cache.get(id))?.name).toBe('Renamed elsewhere');
      expect(cache.reads).toEqual({ memory: 1, database: 2 });

      // The fill race: the database answers with the old row, the change commits and is notified, then the load ends.
      cache.invalidate(id);
      const hold = held.holdNext();
      const loading = cache.get(id);
      await hold.reached;
      const renamed = watch.next(id);
      await rename(id, 'Renamed during the load');
      await renamed;
      hold.release();
      expect((await loading)?.name).toBe('Renamed elsewhere');
      expect((await cache.get(id))?.name).toBe('Renamed during the load');
      expect(cache.reads).toEqual({ memory: 1, database: 4 });
      expect((await cache.get(id))?.name).toBe('Renamed during the load');
      expect(cache.reads).toEqual({ memory: 2, database: 4 });

      // A load started before the listener reconnected may have missed a change: not stored either.
      cache.listening(false);
      const beforeReconnect = held.holdNext();
      const loadingWhileAway = cache.get(id);
      await beforeReconnect.reached;
      cache.listening(true);
      beforeReconnect.release();
      await loadingWhileAway;
      await cache.get(id);
      expect(cache.reads).toEqual({ memory: 2, database: 6 });

      const deleted = watch.next(id);
      await db.deleteFrom('merchants').where('id', '=', id).execute();
      await deleted;
      expect(await cache.get(id)).toBeUndefined();
    } finally {
      await notifications.stop();
    }
  });

  it('keeps settlement destinations beside a cached row only, dropped by a change of a destination by any writer', async () => {
    const cache = new MerchantCache(db, { ttlMs: 60_000 });
    const watch = new NotificationWatch();
    const notifications = new DatabaseNotifications(inject('databaseUrl'));
    notifications.subscribe(MERCHANT_CHANGED_CHANNEL, cache);
    notifications.subscribe(MERCHANT_CHANGED_CHANNEL, watch);
    await notifications.start();
    try {
      const id = newId('mrch');
      const inserted = watch.next(id);
      await insertMerchant(db, partner.partnerId, id);
      await inserted;

      expect(await cache.settlementsOf(id)).toEqual({ fiat: [], crypto: [] });
      await cache.settlementsOf(id);
      expect(cache.reads).toEqual({ memory: 0, database: 2 });
      await cache.get(id);
      const loaded = await cache.settlementsOf(id);
      expect(cache.settlementsOf(id)).toBe(loaded);
      expect(cache.reads).toEqual({ memory: 1, database: 4 });

      const fiatId = newId('fiat');
      const added = watch.next(id);
      await db
        .insertInto('fiat_settlements')
        .values({ id: fiatId, merchant_id: id, bank_type: 'ACH', status: 'active' })
        .execute();
      await added;
      await cache.get(id);
      expect((await cache.settlementsOf(id)).fiat.map((row) => row.id)).toEqual([fiatId]);
      expect(cache.reads).toEqual({ memory: 1, database: 6 });

      const removed = watch.next(id);
      await db.deleteFrom('fiat_settlements').where('id', '=', fiatId).execute();
      await removed;
      expect(await cache.settlementsOf(id)).toEqual({ fiat: [], crypto: [] });
    } finally {
      await notifications.stop();
    }
  });
});

const metricValue = async (server: ServerProcess, pattern: RegExp): Promise<number> => {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const match = pattern.exec(text);
  if (!match) throw new Error(`no ${pattern} in metrics`);
  return Number(match[1]);
};
const memoryReads = (server: ServerProcess) =>
  metricValue(server, /^paygate_merchant_reads_total\{source="memory"\} (\d+)$/m);
const databaseReads = (server: ServerProcess) =>
  metricValue(server, /^paygate_merchant_reads_total\{source="database"\} (\d+)$/m);
const listening = (server: ServerProcess) => metricValue(server, /^paygate_notifications_listening (\d+)$/m);

/** Repeats `read` until `done` holds for its result, at most `attempts` times, and returns the last result. */
async function readUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, attempts = 100): Promise<T> {
  let value = await read();
  for (let attempt = 1; attempt < attempts && !done(value); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

describe('merchant cache across processes', () => {
  let first: ServerProcess;
  let second: ServerProcess;
  let db: Db;
  let partner: TestPartner;
  // A lifetime far beyond the test, so only an invalidation can make a process see a change.
  const env = { DATABASE_URL: inject('databaseUrl'), DEMO_PARTNER: 'never', MERCHANT_CACHE_TTL_MS: '60000' };
  const headers = () => ({ 'api-key': partner.apiKey });
  const nameOn = async (server: ServerProcess, merchantId: string) =>
    (await call(server, `/v1/merchants/${merchantId}`, { headers: headers() })).body.merchant.name as string;

  beforeAll(async () => {
    [first, second] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    db = connect(inject('databaseUrl'), 2);
    partner = await newPartner(db, 'Cache processes partner');
  });
  afterAll(async () => {
    await Promise.all([first.stop(), second.stop()]);
    await db.destroy();
  });

  it('a PATCH through process B is what process A serves, and A never serves the old name again', async () => {
    const merchant = await createMerchant(second, partner.apiKey);
    expect(await nameOn(first, merchant.id)).toBe('Corner Shop');
    const memoryBefore = await memoryReads(first);
    expect(await nameOn(first, merchant.id)).toBe('Corner Shop');
    // Two reads: the merchant and its settlement destinations.
    expect(await memoryReads(first)).toBe(memoryBefore + 2);

    const patched = await call(second, `/v1/merchants/${merchant.id}`, {
      method: 'PATCH',
      headers: headers(),
      body: { merchantName: 'Renamed Shop' },
    });
    expect(patched.body.merchant.name).toBe('Renamed Shop');
    expect(await nameOn(second, merchant.id)).toBe('Renamed Shop');
    expect(
      await readUntil(
        () => nameOn(first, merchant.id),
        (name) => name === 'Renamed Shop',
      ),
    ).toBe('Renamed Shop');
    for (let read = 0; read < 5; read++) expect(await nameOn(first, merchant.id)).toBe('Renamed Shop');
  });

  it('a merchant suspended with the operator command can no longer take payments on a running process (403)', async () => {
    const merchant = await createMerchant(first, partner.apiKey);
    const create = () =>
      call(first, '/v1/payments', {
        method: 'POST',
        headers: { ...headers(), 'merchant-id': merchant.id },
        body: { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: `order-${newId('pay')}` },
      });
    expect((await create()).status).toBe(201);
    const memoryBefore = await memoryReads(first);
    expect((await create()).status).toBe(201);
    expect(await memoryReads(first)).toBeGreaterThan(memoryBefore);

    const suspended = await runCli(['merchant', 'set-status', merchant.id, 'suspended'], {
      DATABASE_URL: inject('databaseUrl'),
    });
    expect(suspended.code, suspended.stderr).toBe(0);
    const refused = await readUntil(create, (result) => result.status === 403);
    expect([refused.status, expectErrorBody(refused).code]).toEqual([403, 'forbidden']);
    expect(refused.body.message).toMatch(/is suspended/);
  });

  it('a merchant deleted through process B is gone on process A at once: not found, and no new payments (404)', async () => {
    const merchant = await createMerchant(first, partner.apiKey);
    const create = () =>
      call(first, '/v1/payments', {
        method: 'POST',
        headers: { ...headers(), 'merchant-id': merchant.id },
        body: { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: `order-${newId('pay')}` },
      });
    expect((await create()).status).toBe(201);
    // Served from memory before the deletion (once the creation's own notification has passed), so only the
    // deletion's notification can make process A see it.
    const memoryHitsOfOneRead = async () => {
      const before = await memoryReads(first);
      expect(await nameOn(first, merchant.id)).toBe('Corner Shop');
      return (await memoryReads(first)) - before;
    };
    expect(await readUntil(memoryHitsOfOneRead, (hits) => hits === 2)).toBe(2);

    const deleted = await call(second, `/v1/merchants/${merchant.id}`, { method: 'DELETE', headers: headers() });
    expect([deleted.status, deleted.body]).toEqual([200, { id: merchant.id, deleted: true }]);
    const gone = await readUntil(
      () => call(first, `/v1/merchants/${merchant.id}`, { headers: headers() }),
      (result) => result.status === 404,
    );
    expect([gone.status, expectErrorBody(gone).code]).toEqual([404, 'not_found']);
    const refused = await create();
    expect([refused.status, expectErrorBody(refused).code]).toEqual([404, 'merchant_not_found']);
  });

  it('a settlement destination registered through process B shows in the merchant process A serves', async () => {
    const merchant = await createMerchant(first, partner.apiKey);
    const settlementsOn = async (server: ServerProcess) =>
      (await call(server, `/v1/merchants/${merchant.id}`, { headers: headers() })).body.merchant.settlements;
    const memoryHitsOfOneRead = async () => {
      const before = await memoryReads(first);
      expect(await settlementsOn(first)).toEqual({ crypto: [], fiat: [] });
      return (await memoryReads(first)) - before;
    };
    // Served from memory, so only the destination's notification can make process A see it.
    expect(await readUntil(memoryHitsOfOneRead, (hits) => hits === 2)).toBe(2);
    const registered = await call(second, `/v1/merchants/${merchant.id}/settlements/crypto`, {
      method: 'POST',
      headers: { ...headers(), 'idempotency-key': newId('pay') },
      body: { settlements: [{ asset: BASE_USDC, destination: BASE_ACCOUNT }] },
    });
    expect(registered.status, registered.text).toBe(201);
    const seen = await readUntil(
      () => settlementsOn(first),
      (settlements) => settlements.crypto.length === 1,
    );
    expect(seen).toEqual({ crypto: registered.body.settlements, fiat: [] });
  });

  it('a change made while the listener connection is down is seen, and the cache serves again once it is back', async () => {
    const merchant = await createMerchant(first, partner.apiKey);
    await nameOn(first, merchant.id);
    await nameOn(first, merchant.id);
    const listenerOf = async (server: ServerProcess) =>
      (
        await sql<{
          pid: number;
        }>`SELECT pid FROM pg_stat_activity WHERE application_name = ${`paygate notifications ${server.child.pid}`}`.execute(
          db,
        )
      ).rows;
    const [listener] = await listenerOf(first);
    expect(listener).toBeDefined();

    // The listener is gone (terminate waits for it) before the change commits, so its notification cannot reach process A.
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('merchants').set({ name: 'Changed while away' }).where('id', '=', merchant.id).execute();
      const { rows } = await sql<{
        terminated: boolean;
      }>`SELECT pg_terminate_backend(${listener!.pid}, 10000) AS terminated`.execute(trx);
      expect(rows[0]?.terminated).toBe(true);
    });
    const databaseBefore = await databaseReads(first);
    expect(await nameOn(first, merchant.id)).toBe('Changed while away');
    expect(await databaseReads(first)).toBe(databaseBefore + 2);
    await first.waitForOutput(/notifications listener connection/);

    const back = await readUntil(
      async () => ({ listening: await listening(first), listeners: await listenerOf(first) }),
      (state) => state.listening === 1 && state.listeners.length === 1,
      200,
    );
    expect(back.listening).toBe(1);
    expect(back.listeners.map((row) => row.pid)).not.toEqual([listener!.pid]);
    await nameOn(first, merchant.id);
    const memoryBefore = await memoryReads(first);
    expect(await nameOn(first, merchant.id)).toBe('Changed while away');
    expect(await memoryReads(first)).toBe(memoryBefore + 2);

    await db.updateTable('merchants').set({ name: 'Changed after reconnect' }).where('id', '=', merchant.id).execute();
    expect(
      await readUntil(
        () => nameOn(first, merchant.id),
        (name) => name === 'Changed after reconnect',
      ),
    ).toBe('Changed after reconnect');
  });
});
