import { useState } from 'preact/hooks';
import { getJson } from '../ui/api.ts';
import { ErrorNotice, failureMessage } from '../ui/common.tsx';
import { formatDateTimeSeconds } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import type { PaymentDetailAnswer, Session } from './apiTypes.ts';
import { webhookPath } from './paths.ts';
import { redeliverEvent } from './webhooksApi.ts';

/** An event about the payment and its deliveries (`GET /v1/payments/{id}/events`). */
interface PaymentEventView {
  id: string;
  type: string;
  createdAt: string;
  deliveries: {
    deliveryId: string;
    endpointId: string;
    url: string;
    status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
    attempts: number;
    redelivery: boolean;
    completedAt: string | null;
  }[];
}

const DELIVERY_TEXT: Record<PaymentEventView['deliveries'][number]['status'], string> = {
  pending: 'Being delivered',
  succeeded: 'Delivered',
  failed: 'Not delivered, given up',
  cancelled: 'Cancelled (endpoint deleted)',
};

/** While a delivery is on its way, the timeline asks again this often. */
const PENDING_DELIVERY_REFRESH_MS = 5_000;

function attemptsText(attempts: number): string {
  return `${attempts} attempt${attempts === 1 ? '' : 's'}`;
}

/**
 * The payment's timeline: each event about it and its refunds, oldest first, with its deliveries to the partner's
 * webhook endpoints and a way to send one again. It is read again when the payment changes and while a delivery is
 * on its way.
 */
export function PaymentTimeline(props: { payment: PaymentDetailAnswer; session: Session }) {
  const { payment } = props;
  const refundsState = payment.refunds?.map((refund) => refund.status).join(',') ?? '';
  const events = useLiveData(
    `${payment.paymentId}\n${payment.status}\n${payment.lastUpdatedAt}\n${refundsState}`,
    async (signal) =>
      (
        await getJson<{ data: PaymentEventView[] }>(`/v1/payments/${encodeURIComponent(payment.paymentId)}/events`, {
          headers: { 'merchant-id': payment.merchant.id },
          signal,
        })
      ).body.data,
    (loaded) =>
      loaded.some((event) => event.deliveries.some((delivery) => delivery.status === 'pending'))
        ? PENDING_DELIVERY_REFRESH_MS
        : undefined,
  );
  const [resending, setResending] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<{ done: boolean; text: string } | undefined>();
  const resend = async (event: PaymentEventView, endpointId: string, url: string) => {
    setResending(`${event.id}\n${endpointId}`);
    setOutcome(undefined);
    try {
      await redeliverEvent(props.session, event.id, endpointId);
      setOutcome({ done: true, text: `${event.type} is sent to ${url} again.` });
      events.reload();
    } catch (error) {
      setOutcome({ done: false, text: `Not resent: ${failureMessage(error as Error)}` });
    }
    setResending(undefined);
  };
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      <p class={outcome ? (outcome.done ? 'notice' : 'error') : 'visually-hidden'} role="status">
        {outcome?.text}
      </p>
      {events.error && <ErrorNotice error={events.error} prefix="Could not read the events:" />}
      {events.data?.length === 0 && <p class="empty">No events yet.</p>}
      {events.data && events.data.length > 0 && (
        <ol class="timeline">
          {events.data.map((event) => (
            <li key={event.id} data-event-id={event.id}>
              <p>
                <time dateTime={event.createdAt}>{formatDateTimeSeconds(event.createdAt)}</time>{' '}
                <code>{event.type}</code>
              </p>
              {event.deliveries.length === 0 ? (
                <p class="hint">No endpoint takes this event.</p>
              ) : (
                <ul class="plain">
                  {event.deliveries.map((delivery) => (
                    <li key={delivery.deliveryId} data-delivery-id={delivery.deliveryId}>
                      <a href={webhookPath(delivery.endpointId)} class="hash">
                        {delivery.url}
                      </a>
                      : {DELIVERY_TEXT[delivery.status]}, {attemptsText(delivery.attempts)}
                      {delivery.redelivery ? ' (sent again)' : ''}{' '}
                      <button
                        type="button"
                        class="quiet"
                        disabled={resending !== undefined}
                        aria-label={`Resend ${event.type} to ${delivery.url}`}
                        onClick={() => resend(event, delivery.endpointId, delivery.url)}
                      >
                        {resending === `${event.id}\n${delivery.endpointId}` ? 'Resending…' : 'Resend'}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
