import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Db } from '../../src/db/database.ts';
import { newId } from '../../src/ids.ts';
import { recordEvent } from '../../src/webhooks/events.ts';
import { newPartner, type TestPartner } from '../support/testServer.ts';

describe('recordEvent', () => {
  let db: Db;
  let partner: TestPartner;

  beforeAll(async () => {
    db = connect(inject('databaseUrl'), 2);
    partner = await newPartner(db);
  });
  afterAll(() => db.destroy());

  async function addEndpoint(values: { merchantId?: string; events: string[] }) {
    const id = newId('whk');
    await db
      .insertInto('webhook_endpoints')
      .values({
        id,
        partner_id: partner.partnerId,
        merchant_id: values.merchantId ?? null,
        url: 'https://receiver.example/hook',
        events: values.events,
        secret: 'whsec_test',
      })
      .execute();
    return id;
  }

  it('stores the rendered body and one pending delivery with a job per matching endpoint', async () => {
    const merchantId = newId('mrch');
    await db
      .insertInto('merchants')
      .values({ id: merchantId, partner_id: partner.partnerId, name: 'M', email: 'm@example.com', logo_file: null })
      .execute();
    const all = await addEndpoint({ events: ['payment.succeeded', 'payment.failed'] });
    const forMerchant = await addEndpoint({ merchantId, events: ['payment.succeeded'] });
    const otherType = await addEndpoint({ events: ['payment.failed'] });
    const otherMerchantId = newId('mrch');
    await db
      .insertInto('merchants')
      .values({
        id: otherMerchantId,
        partner_id: partner.partnerId,
        name: 'N',
        email: 'n@example.com',
        logo_file: null,
      })
      .execute();
    const otherMerchant = await addEndpoint({ merchantId: otherMerchantId, events: ['payment.succeeded'] });

    const eventId = await db.transaction().execute((trx) =>
      recordEvent(trx, {
        partnerId: partner.partnerId,
        merchantId,
        type: 'payment.succeeded',
        object: { id: 'pay_1' },
      }),
    );
    expect(eventId).toMatch(/^evt_[0-9A-Z]{26}$/);
    const event = await db.selectFrom('webhook_events').selectAll().where('id', '=', eventId).executeTakeFirstOrThrow();
    expect(JSON.parse(event.body)).toEqual({
      id: eventId,
      type: 'payment.succeeded',
      createdAt: event.created_at.toISOString(),
      apiVersion: '2026-02-18',
      data: { object: { id: 'pay_1' } },
    });
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('event_id', '=', eventId)
      .orderBy('id')
      .execute();
    expect(deliveries.map((row) => row.endpoint_id).sort()).toEqual([all, forMerchant].sort());
    expect(deliveries.every((row) => row.status === 'pending')).toBe(true);
    expect(deliveries.map((row) => row.endpoint_id)).not.toContain(otherType);
    expect(deliveries.map((row) => row.endpoint_id)).not.toContain(otherMerchant);
    const jobs = await sql<{ queue_name: string; payload: { deliveryId: string } }>`
      SELECT queues.queue_name, jobs.payload
      FROM graphile_worker._private_jobs jobs
      JOIN graphile_worker._private_tasks tasks ON tasks.id = jobs.task_id
      JOIN graphile_worker._private_job_queues queues ON queues.id = jobs.job_queue_id
      WHERE tasks.identifier = 'webhooks_deliver'
    `.execute(db);
    for (const delivery of deliveries) {
      expect(jobs.rows).toContainEqual({
        queue_name: `webhooks:${delivery.endpoint_id}`,
        payload: { deliveryId: delivery.id },
      });
    }
  });

  it('leaves nothing behind when the transaction rolls back', async () => {
    await addEndpoint({ events: ['merchant.updated'] });
    let eventId = '';
    await expect(
      db.transaction().execute(async (trx) => {
        eventId = await recordEvent(trx, {
          partnerId: partner.partnerId,
          merchantId: null,
          type: 'merchant.updated',
          object: {},
        });
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    expect(eventId).toMatch(/^evt_/);
    expect(await db.selectFrom('webhook_events').select('id').where('id', '=', eventId).execute()).toEqual([]);
    expect(await db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId).execute()).toEqual(
      [],
    );
  });
});
