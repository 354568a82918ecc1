import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { UserFacingError } from '../userFacingError.ts';
import { signatureHeader } from '@paygate/client/webhooks';

export class ListenError extends UserFacingError {}

export interface ListenOptions {
  /** The service, e.g. `http://localhost:8080`. */
  baseUrl: string;
  apiKey: string;
  /** Where each event is POSTed, e.g. `http://localhost:3000/hooks`. */
  forwardTo: string;
  /** Comma-separated event types; every type when absent. */
  events?: string;
  merchantId?: string;
  /** Signs the forwarded requests; a new `whsec_` secret is made (and printed) when absent. */
  secret?: string;
  /** Where each event's line goes, and where the start and connection notices go. */
  print: (line: string) => void;
  notice: (line: string) => void;
  signal: AbortSignal;
}

/** The longest wait between two tries to reconnect. */
const MAX_RECONNECT_MS = 10_000;
/** The service writes at least every 15 s; a connection silent this long is dead, though no error said so. */
const IDLE_MS = 45_000;
/** The local receiver's budget per event. */
const FORWARD_TIMEOUT_MS = 10_000;

function time(): string {
  return new Date().toISOString().slice(11, 19);
}

/** POSTs the event's exact body, signed as the service signs webhook deliveries; says what came back. */
async function forward(options: ListenOptions, secret: string, event: { id: string; body: string }): Promise<string> {
  try {
    const response = await fetch(options.forwardTo, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'pay-signature': signatureHeader(secret, event.body, Math.floor(Date.now() / 1000)),
        'pay-event-id': event.id,
        'user-agent': 'paygate-webhooks-listen',
      },
      body: event.body,
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    await response.body?.cancel();
    return `[${response.status}]`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return `[failed: ${cause ?? (error as Error).message}]`;
  }
}

/** Why the service refused the stream, from its error body, for a person. */
async function refusal(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { message?: string; code?: string };
    return `${response.status} ${body.code ?? ''}: ${body.message ?? text}`.trim();
  } catch {
    return `${response.status}: ${text.slice(0, 200)}`;
  }
}

/**
 * Follows the partner's event stream and forwards each event, signed with `secret`, to a local URL, printing one
 * line per event with the receiver's answer, until `signal` aborts. A lost connection is resumed after the last
 * event received (`Last-Event-ID`); credentials or options the service refuses end it with the service's reason.
 */
export async function listenForEvents(options: ListenOptions): Promise<void> {
  let target: URL;
  try {
    target = new URL(options.forwardTo);
  } catch {
    throw new ListenError(`--forward-to ${options.forwardTo} is not a URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new ListenError('--forward-to must be an http:// or https:// URL');
  const secret = options.secret ?? `whsec_${randomBytes(24).toString('hex')}`;
  // Relative to the base URL's own path, so a service behind a path prefix is reached under it.
  const streamUrl = new URL(
    'v1/events/stream',
    options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`,
  );
  if (options.events) streamUrl.searchParams.set('events', options.events);
  if (options.merchantId) streamUrl.searchParams.set('merchantId', options.merchantId);

  let lastEventId: string | undefined;
  let retryMs = 500;
  let ready = false;
  const pause = async (why: string, waitMs = retryMs) => {
    options.notice(`${time()}  ${why}; trying again in ${waitMs / 1000} s`);
    await sleep(waitMs, undefined, { signal: options.signal }).catch(() => undefined);
    retryMs = Math.min(retryMs * 2, MAX_RECONNECT_MS);
  };
  while (!options.signal.aborted) {
    const connection = new AbortController();
    const signal = AbortSignal.any([options.signal, connection.signal]);
    let idle = setTimeout(() => connection.abort(), IDLE_MS);
    let response: Response;
    try {
      response = await fetch(streamUrl, {
        headers: {
          'api-key': options.apiKey,
          accept: 'text/event-stream',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal,
      });
    } catch (error) {
      clearTimeout(idle);
      if (options.signal.aborted) return;
      if (!ready) throw new ListenError(`cannot reach the service at ${options.baseUrl}: ${(error as Error).message}`);
      await pause('connection lost');
      continue;
    }
    if (!response.ok || !response.body) {
      clearTimeout(idle);
      if (ready && (response.status >= 500 || response.status === 429)) {
        // A dropped stream may still count against the account's streams for a moment.
        await pause(
          `the service answered ${response.status}`,
          Number(response.headers.get('retry-after')) * 1000 || retryMs,
        );
        continue;
      }
      if (ready && response.status === 404 && lastEventId) {
        lastEventId = undefined;
        await pause(`the last event received is gone; following from now`);
        continue;
      }
      throw new ListenError(`the service refused the event stream: ${await refusal(response)}`);
    }
    if (!ready) {
      ready = true;
      options.notice(
        `Ready: forwarding events of ${options.baseUrl} to ${options.forwardTo}\n` +
          `Your webhook signing secret is ${secret} (verify Pay-Signature with it; --secret keeps it across runs)\n` +
          'Ctrl-C stops.',
      );
    } else {
      options.notice(`${time()}  reconnected`);
    }
    retryMs = 500;
    try {
      const alive = new TransformStream<BufferSource, BufferSource>({
        transform(chunk, controller) {
          clearTimeout(idle);
          idle = setTimeout(() => connection.abort(), IDLE_MS);
          controller.enqueue(chunk);
        },
      });
      const events = response.body
        .pipeThrough(alive)
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())
        .getReader();
      for (let next = await events.read(); !next.done; next = await events.read()) {
        const event = next.value;
        if (!event.id) continue;
        lastEventId = event.id;
        const status = await forward(options, secret, { id: event.id, body: event.data });
        options.print(`${time()}  ${event.event ?? 'message'}  ${event.id}  -> POST ${options.forwardTo} ${status}`);
      }
    } catch (error) {
      if (options.signal.aborted) return;
      options.notice(
        `${time()}  stream interrupted: ${connection.signal.aborted ? 'no data for 45 s' : (error as Error).message}`,
      );
    } finally {
      clearTimeout(idle);
    }
    if (!options.signal.aborted) await pause('connection closed');
  }
}
