import { once } from 'node:events';
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
import { readableEventTypes, requireEventTypesReadable } from './eventScopes.ts';
import { EVENT_TYPES, type EventType, type RecordedEventType, TEST_EVENT_TYPE } from './events.ts';

/** How often a stream looks for new events. */
const POLL_MS = 500;
/** A comment line this often keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;
/**
 * An event is stamped with its transaction's start, so one committed late can carry an older time than events
 * already sent: each look reaches this far back and skips the ids it sent. A transaction that commits later than
 * this after it started would be missed; recording an event takes milliseconds.
 */
const LOOKBACK_MS = 10_000;
/** Events read per query. */
const PAGE = 500;
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
  /** Those asked for, else every type the credentials may read. */
  types: RecordedEventType[];
}

interface EventKey {
  id: string;
  created_at: Date;
}

interface StoredEvent {
  id: string;
  type: string;
  body: string;
}

/**
 * The ids of the partner's events recorded after `since` (the database's clock), oldest first, a page at a time:
 * after `after`, the last key of the page before. Ids only: most of a look's window was sent already.
 */
function eventKeysSince(db: Db, filter: StreamFilter, since: Date, after: EventKey | undefined): Promise<EventKey[]> {
  let query = db
    .selectFrom('webhook_events')
    .select(['id', 'created_at'])
    .where('partner_id', '=', filter.partnerId)
    .where('created_at', '>', since)
    .where('type', 'in', filter.types)
    // A test event is addressed to the one endpoint it was asked for, not to whoever follows the account.
    .where('type', '<>', TEST_EVENT_TYPE)
    .orderBy('created_at')
    .orderBy('id')
    .limit(PAGE);
  if (after) query = query.where(sql<boolean>`(created_at, id) > (${after.created_at}, ${after.id})`);
  if (filter.merchantId) query = query.where('merchant_id', '=', filter.merchantId);
  return query.execute();
}

async function eventsByIds(db: Db, ids: string[]): Promise<StoredEvent[]> {
  if (!ids.length) return [];
  const rows = await db.selectFrom('webhook_events').select(['id', 'type', 'body']).where('id', 'in', ids).execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Follows a partner's events for one stream, at least once each. A new stream takes what its first look finds
 * recorded before `opened` as seen; a resumed one (`Last-Event-ID`) replays the look-back window before that event,
 * since an event that committed late may sit there, and skips the event itself.
 */
async function* followEvents(
  db: Db,
  filter: StreamFilter,
  from: { opened: Date } | { resumeAfter: EventKey },
  signal: AbortSignal,
): AsyncGenerator<StoredEvent> {
  const seen = new Map<string, number>();
  const start = 'opened' in from ? from.opened : from.resumeAfter.created_at;
  if ('resumeAfter' in from) seen.set(from.resumeAfter.id, start.getTime());
  let since = new Date(start.getTime() - LOOKBACK_MS);
  let firstLook = true;
  while (!signal.aborted) {
    let after: EventKey | undefined;
    let newest = since.getTime();
    for (;;) {
      const keys = await eventKeysSince(db, filter, since, after);
      const fresh = keys.filter((key) => !seen.has(key.id));
      for (const key of keys) {
        seen.set(key.id, key.created_at.getTime());
        newest = Math.max(newest, key.created_at.getTime());
      }
      const wanted = firstLook && 'opened' in from ? fresh.filter((key) => key.created_at >= start) : fresh;
      yield* await eventsByIds(
        db,
        wanted.map((key) => key.id),
      );
      after = keys.at(-1);
      if (keys.length < PAGE || signal.aborted) break;
    }
    firstLook = false;
    since = new Date(Math.max(since.getTime(), newest - LOOKBACK_MS));
    for (const [id, at] of seen) if (at <= since.getTime()) seen.delete(id);
    await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
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
          "`event` and the exact webhook body as `data`, of the types the key's scopes read (payment and refund " +
          'events need `payments`; asking for others is 403 forbidden). With `Last-Event-ID` it resumes after that ' +
          'event. Delivery ' +
          'is at least once (deduplicate on the id), independent of the webhook endpoints; test events, sent to one ' +
          'endpoint only, are not in it. `paygate webhooks listen` ' +
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
      const principal = principalOf(request);
      const { partnerId } = principal;
      const requested = eventTypesOf(request.query.events);
      if (requested) requireEventTypesReadable(principal, requested);
      const types = requested ?? readableEventTypes(principal);
      const merchantId = request.query.merchantId;
      if (merchantId !== undefined) await merchantOfPartner(ctx.merchants, partnerId, merchantId);
      const lastEventId = request.headers['last-event-id'];
      const resumeAfter = lastEventId
        ? await ctx.db
            .selectFrom('webhook_events')
            .select(['id', 'created_at'])
            .where('id', '=', lastEventId)
            .where('partner_id', '=', partnerId)
            .where('type', 'in', readableEventTypes(principal))
            .executeTakeFirst()
        : undefined;
      if (lastEventId && !resumeAfter) throw ApiError.notFound(`Event ${lastEventId.slice(0, 64)} not found.`);
      // Read before the stream takes its slot, so a failed read leaves none taken.
      const from = resumeAfter
        ? { resumeAfter }
        : { opened: (await sql<{ now: Date }>`SELECT now() AS now`.execute(ctx.db)).rows[0]!.now };
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
      const keepAlive = setInterval(() => {
        if (!body.writableEnded) body.write(': keep-alive\n\n');
      }, KEEP_ALIVE_MS);
      stream.signal.addEventListener('abort', () => clearInterval(keepAlive));
      void (async () => {
        try {
          const filter = { partnerId, types, ...(merchantId ? { merchantId } : {}) };
          for await (const event of followEvents(ctx.db, filter, from, stream.signal)) {
            if (body.writableEnded) break;
            // A reader slower than the events holds the stream back instead of the process's memory.
            if (!body.write(serverSentEvent(event))) await once(body, 'drain', { signal: stream.signal });
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
