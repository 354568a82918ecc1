import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App, AppContext } from '../context.ts';
import type { Db } from '../db/database.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { merchantOfPartner } from '../merchants/merchantOfPartner.ts';
import { EVENT_TYPES, type EventType } from './events.ts';

/** How often a stream looks for new events. */
const POLL_MS = 500;
/** A comment line this often keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;
/**
 * An event is stamped with its transaction's start, so one committed late can carry an older time than events
 * already sent: each look reaches this far back and skips the ids it sent. A transaction that commits later than
 * this after it started would be missed; recording an event takes milliseconds.
 */
const LOOKBACK_MS = 30_000;
/** Streams one partner may hold open in one process: each looks at the database twice a second. */
export const STREAMS_PER_PARTNER = 5;

const StreamQuery = Type.Object(
  {
    events: Type.Optional(
      Type.String({
        maxLength: 1024,
        description: 'Comma-separated event types to receive (every type when absent), e.g. `payment.succeeded`',
      }),
    ),
    merchantId: Type.Optional(Type.String({ maxLength: 64, description: "Only this merchant's events" })),
  },
  { additionalProperties: false },
);

function eventTypesOf(text: string | undefined): EventType[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const types = [...new Set(text.split(',').map((type) => type.trim()))];
  const unknown = types.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length) {
    throw ApiError.validation(
      unknown.map((type) => ({ field: 'events', message: `unknown event type ${type.slice(0, 64)}` })),
      `Unknown event types; known: ${EVENT_TYPES.join(', ')}.`,
    );
  }
  return types as EventType[];
}

interface StreamFilter {
  partnerId: string;
  merchantId?: string;
  types?: EventType[];
}

interface StoredEvent {
  id: string;
  type: string;
  body: string;
  created_at: Date;
}

/** The partner's events recorded after `since` (the database's clock), oldest first. */
function eventsSince(db: Db, filter: StreamFilter, since: Date): Promise<StoredEvent[]> {
  let query = db
    .selectFrom('webhook_events')
    .select(['id', 'type', 'body', 'created_at'])
    .where('partner_id', '=', filter.partnerId)
    .where('created_at', '>', since)
    .orderBy('created_at')
    .orderBy('id')
    .limit(500);
  if (filter.merchantId) query = query.where('merchant_id', '=', filter.merchantId);
  if (filter.types) query = query.where('type', 'in', filter.types);
  return query.execute();
}

/**
 * Follows a partner's events for one stream: the first look takes what is already recorded as seen (or, resuming
 * after `Last-Event-ID`, what was recorded up to that event), each later look yields what it had not seen.
 */
async function* followEvents(
  db: Db,
  filter: StreamFilter,
  resumeAfter: { id: string; createdAt: Date } | undefined,
  signal: AbortSignal,
): AsyncGenerator<StoredEvent> {
  const seen = new Map<string, number>();
  const start = resumeAfter?.createdAt ?? (await sql<{ now: Date }>`SELECT now() AS now`.execute(db)).rows[0]!.now;
  let since = new Date(start.getTime() - LOOKBACK_MS);
  let first = true;
  while (!signal.aborted) {
    const events = await eventsSince(db, filter, since);
    for (const event of events) {
      if (seen.has(event.id)) continue;
      seen.set(event.id, event.created_at.getTime());
      const before = event.created_at.getTime() < start.getTime() || event.id === resumeAfter?.id;
      if (first && before) continue;
      yield event;
    }
    // A first look that filled its page goes on taking what was recorded before the stream opened as seen.
    first &&= events.length === 500;
    const newest = events.at(-1)?.created_at.getTime();
    if (newest !== undefined && events.length === 500) since = new Date(newest - 1);
    else if (newest !== undefined) since = new Date(Math.max(since.getTime(), newest - LOOKBACK_MS));
    for (const [id, at] of seen) if (at <= since.getTime()) seen.delete(id);
    if (events.length < 500) await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
  }
}

/** One server-sent event: its id (for `Last-Event-ID`), its type and its webhook body, unchanged. */
function serverSentEvent(event: StoredEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${event.body}\n\n`;
}

export function registerStreamEvents(app: App, ctx: AppContext): void {
  const open = new Map<string, Set<AbortController>>();
  // Streams never end by themselves: the service ends them when it stops, so closing does not wait on them.
  app.addHook('preClose', async () => {
    for (const streams of open.values()) for (const stream of streams) stream.abort();
  });

  app.get(
    '/v1/events/stream',
    {
      config: { auth: { scope: 'merchants' } },
      schema: {
        tags: ['webhooks'],
        summary: "Follow the account's events as they are recorded (server-sent events)",
        description:
          'A `text/event-stream` of the events recorded from now on: each has the event id as `id`, its type as ' +
          '`event` and the exact webhook body as `data`. With `Last-Event-ID` it resumes after that event. Delivery ' +
          'is at least once (deduplicate on the id), independent of the webhook endpoints. `paygate webhooks listen` ' +
          'forwards it, signed, to a local URL.',
        querystring: StreamQuery,
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 64 })) }),
        response: {
          200: {
            description: 'Server-sent events',
            content: { 'text/event-stream': { schema: Type.String() } },
          },
          ...errorResponses(404, 429),
        },
      },
    },
    async (request, reply) => {
      const { partnerId } = principalOf(request);
      const types = eventTypesOf(request.query.events);
      const merchantId = request.query.merchantId;
      if (merchantId !== undefined) await merchantOfPartner(ctx.merchants, partnerId, merchantId);
      const lastEventId = request.headers['last-event-id'];
      const resumeAfter = lastEventId
        ? await ctx.db
            .selectFrom('webhook_events')
            .select(['id', 'created_at as createdAt'])
            .where('id', '=', lastEventId)
            .where('partner_id', '=', partnerId)
            .executeTakeFirst()
        : undefined;
      if (lastEventId && !resumeAfter) throw ApiError.notFound(`Event ${lastEventId.slice(0, 64)} not found.`);
      const streams = open.get(partnerId) ?? new Set<AbortController>();
      if (streams.size >= STREAMS_PER_PARTNER) {
        reply.header('retry-after', '10');
        throw new ApiError('rate_limited', `At most ${STREAMS_PER_PARTNER} event streams per account at once.`);
      }
      const stream = new AbortController();
      streams.add(stream);
      open.set(partnerId, streams);
      const body = new PassThrough();
      const end = () => {
        stream.abort();
        streams.delete(stream);
        if (streams.size === 0 && open.get(partnerId) === streams) open.delete(partnerId);
        body.end();
      };
      request.raw.on('close', end);
      const keepAlive = setInterval(() => body.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      stream.signal.addEventListener('abort', () => clearInterval(keepAlive));
      void (async () => {
        try {
          const filter = { partnerId, ...(merchantId ? { merchantId } : {}), ...(types ? { types } : {}) };
          for await (const event of followEvents(ctx.db, filter, resumeAfter, stream.signal)) {
            body.write(serverSentEvent(event));
          }
        } catch (error) {
          request.log.warn(`event stream ended: ${(error as Error).message}`);
        } finally {
          end();
        }
      })();
      body.write(': stream open\n\n');
      return (
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('x-accel-buffering', 'no')
          // The stream's bytes are the string the schema documents.
          .send(body as unknown as string)
      );
    },
  );
}
