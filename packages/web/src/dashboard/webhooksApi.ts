import { change, getJson } from '../ui/api.ts';
import type { DeliveryAttemptView, Session, WebhookEndpointView } from './apiTypes.ts';

export async function loadWebhookEndpoints(signal: AbortSignal): Promise<WebhookEndpointView[]> {
  return (await getJson<{ data: WebhookEndpointView[] }>('/v1/webhooks', { signal })).body.data;
}

/** A new endpoint and its signing secret, which the API shows this once. */
export async function createWebhookEndpoint(
  session: Session,
  fields: { url: string; events: string[]; merchantId?: string },
): Promise<WebhookEndpointView & { secret: string }> {
  const answer = await change<{ webhook: WebhookEndpointView & { secret: string } }>('POST', '/v1/webhooks', {
    csrfToken: session.csrfToken,
    body: fields,
  });
  return answer!.webhook;
}

export async function deleteWebhookEndpoint(session: Session, endpointId: string): Promise<void> {
  await change('DELETE', `/v1/webhooks/${encodeURIComponent(endpointId)}`, { csrfToken: session.csrfToken });
}

/** A page of an endpoint's delivery attempts, newest first. */
export async function loadDeliveries(
  endpointId: string,
  query: URLSearchParams,
  signal: AbortSignal,
): Promise<{ data: DeliveryAttemptView[]; nextCursor: string | null }> {
  const path = `/v1/webhooks/${encodeURIComponent(endpointId)}/deliveries?${query}`;
  return (await getJson<{ data: DeliveryAttemptView[]; nextCursor: string | null }>(path, { signal })).body;
}

/** Schedules the event's delivery to the endpoint again. */
export async function redeliverEvent(session: Session, eventId: string, endpointId: string): Promise<void> {
  await change('POST', `/v1/events/${encodeURIComponent(eventId)}/redeliver`, {
    csrfToken: session.csrfToken,
    body: { endpointId },
  });
}

/** Sends a `webhook.test` event to the endpoint alone; its delivery is listed like any other. */
export async function sendTestEvent(
  session: Session,
  endpointId: string,
): Promise<{ eventId: string; deliveryId: string }> {
  const answer = await change<{ eventId: string; deliveryId: string }>(
    'POST',
    `/v1/webhooks/${encodeURIComponent(endpointId)}/test-events`,
    { csrfToken: session.csrfToken },
  );
  return answer!;
}
