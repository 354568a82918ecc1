import { useState } from 'preact/hooks';
import { ErrorNotice, failureMessage, PageHeading, usePageTitle } from '../ui/common.tsx';
import { ConfirmAction } from '../ui/confirmAction.tsx';
import { formatDateTime } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { cursorPaging, Pager, PagedTable } from '../ui/pager.tsx';
import { type Location, navigate } from '../ui/router.ts';
import type { DeliveryAttemptView, Session } from './apiTypes.ts';
import { merchantText } from './developersPage.tsx';
import { DEVELOPERS_PATH, webhookPath } from './paths.ts';
import { loadMerchants } from './paymentsApi.ts';
import {
  deleteWebhookEndpoint,
  loadDeliveries,
  loadWebhookEndpoints,
  redeliverEvent,
  sendTestEvent,
} from './webhooksApi.ts';

/** How often an open endpoint page asks for its deliveries again: a resent event shows without a reload. */
const DELIVERIES_REFRESH_MS = 5_000;

const OUTCOMES: Record<DeliveryAttemptView['outcome'], string> = {
  succeeded: 'Delivered',
  will_retry: 'Failed, will retry',
  given_up: 'Failed, given up',
};

/** What the receiver answered, in words. */
function answerText(attempt: DeliveryAttemptView): string {
  if (attempt.statusCode !== null) return `HTTP ${attempt.statusCode}`;
  return attempt.error ?? 'No answer';
}

function DeliveryRows(props: {
  attempts: DeliveryAttemptView[];
  onResend: (attempt: DeliveryAttemptView) => void;
  resending: string | undefined;
}) {
  return (
    <PagedTable
      id="delivery-rows"
      rows={props.attempts.length}
      empty="No deliveries yet: events are sent here as they happen."
      caption="Delivery attempts, newest first"
    >
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Attempt</th>
          <th scope="col">Outcome</th>
          <th scope="col">Answer</th>
          <th scope="col">When</th>
          <th scope="col">
            <span class="visually-hidden">Resend</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.attempts.map((attempt) => (
          <tr key={attempt.id} data-attempt-id={attempt.id} data-event-id={attempt.eventId}>
            <td data-label="Event">
              <code>{attempt.eventType}</code> <code class="hash">{attempt.eventId}</code>
            </td>
            <td data-label="Attempt">
              {attempt.attempt}
              {attempt.redelivery ? ' (resent)' : ''}
            </td>
            <td data-label="Outcome">
              <span class={`status delivery-${attempt.outcome}`}>{OUTCOMES[attempt.outcome]}</span>
            </td>
            <td data-label="Answer">
              {answerText(attempt)} <span class="hint">in {attempt.durationMs} ms</span>
            </td>
            <td data-label="When">{formatDateTime(attempt.attemptedAt)}</td>
            <td data-label="Resend">
              <button
                type="button"
                disabled={props.resending === attempt.eventId}
                onClick={() => props.onResend(attempt)}
              >
                Resend<span class="visually-hidden"> event {attempt.eventId}</span>
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </PagedTable>
  );
}

/** Deleting the endpoint after a confirmation: no event is sent to it from then on. */
function DeleteEndpoint(props: { session: Session; endpointId: string; url: string; onDeleted: () => void }) {
  return (
    <ConfirmAction
      askLabel="Delete endpoint…"
      question={`Delete the endpoint ${props.url}? No event is sent to it from then on. This cannot be undone.`}
      confirmLabel="Yes, delete the endpoint"
      busyLabel="Deleting…"
      keepLabel="Keep the endpoint"
      failurePrefix="Not deleted"
      onConfirm={async () => {
        await deleteWebhookEndpoint(props.session, props.endpointId);
        props.onDeleted();
      }}
    />
  );
}

/**
 * A webhook endpoint: what it receives, its delivery attempts newest first (refreshed while open), sending it a test
 * event, resending an event to it, and deleting it.
 */
export function WebhookPage(props: { session: Session; endpointId: string; location: Location }) {
  const endpoints = useLiveData('webhooks', loadWebhookEndpoints, () => undefined);
  const merchants = useLiveData('merchants', loadMerchants, () => undefined);
  const endpoint = endpoints.data?.find((each) => each.id === props.endpointId);
  const query = new URLSearchParams({ limit: '20' });
  const cursor = props.location.query.get('cursor');
  if (cursor) query.set('cursor', cursor);
  const deliveries = useLiveData(
    `${props.endpointId}?${query}`,
    (signal) => loadDeliveries(props.endpointId, query, signal),
    () => DELIVERIES_REFRESH_MS,
  );
  const [resending, setResending] = useState<string | undefined>();
  const [testing, setTesting] = useState(false);
  const [outcome, setOutcome] = useState<{ done: boolean; text: string } | undefined>();
  const [deleted, setDeleted] = useState(false);
  const paging = cursorPaging(props.location, query, (shown, state) => {
    shown.delete('limit');
    navigate(`${webhookPath(props.endpointId)}${shown.size ? `?${shown}` : ''}`, { state });
  });
  const heading = deleted
    ? 'Webhook endpoint deleted'
    : endpoint
      ? 'Webhook endpoint'
      : endpoints.data
        ? 'Webhook endpoint not found'
        : 'Webhook endpoint';
  usePageTitle(heading);

  const resend = async (attempt: DeliveryAttemptView) => {
    setResending(attempt.eventId);
    setOutcome(undefined);
    try {
      await redeliverEvent(props.session, attempt.eventId, props.endpointId);
      setOutcome({ done: true, text: `Event ${attempt.eventId} is sent again; its attempt shows here.` });
      deliveries.reload();
    } catch (error) {
      setOutcome({ done: false, text: `Not resent: ${failureMessage(error as Error)}` });
    }
    setResending(undefined);
  };

  const sendTest = async () => {
    setTesting(true);
    setOutcome(undefined);
    try {
      const { eventId } = await sendTestEvent(props.session, props.endpointId);
      setOutcome({ done: true, text: `Test event ${eventId} is sent; its attempt shows here.` });
      deliveries.reload();
    } catch (error) {
      setOutcome({ done: false, text: `No test event sent: ${failureMessage(error as Error)}` });
    }
    setTesting(false);
  };

  return (
    <>
      <p class="back">
        <a href={DEVELOPERS_PATH}>Developers</a>
      </p>
      <PageHeading>{heading}</PageHeading>
      {deleted && (
        <p class="notice" role="status">
          The endpoint is deleted. <a href={DEVELOPERS_PATH}>Back to the webhook endpoints</a>.
        </p>
      )}
      {!deleted && endpoints.error && <ErrorNotice error={endpoints.error} />}
      {!deleted && endpoints.data && !endpoint && <p>No webhook endpoint of yours has the id {props.endpointId}.</p>}
      {!deleted && endpoint && (
        <>
          <dl class="facts">
            <div class="fact">
              <dt>URL</dt>
              <dd class="hash">{endpoint.url}</dd>
            </div>
            <div class="fact">
              <dt>Events</dt>
              <dd>{endpoint.events.join(', ')}</dd>
            </div>
            <div class="fact">
              <dt>Merchant</dt>
              <dd>{merchantText(endpoint.merchantId, merchants.data)}</dd>
            </div>
            <div class="fact">
              <dt>Endpoint id</dt>
              <dd>
                <code>{endpoint.id}</code>
              </dd>
            </div>
          </dl>
          <h2>Deliveries</h2>
          <p>
            <button type="button" disabled={testing} onClick={sendTest}>
              {testing ? 'Sending…' : 'Send a test event'}
            </button>{' '}
            <span class="hint">
              A <code>webhook.test</code> event, to this endpoint only, whatever events it receives.
            </span>
          </p>
          <p class={outcome ? (outcome.done ? 'notice' : 'error') : 'visually-hidden'} role="status">
            {outcome?.text}
          </p>
          {deliveries.error && <ErrorNotice error={deliveries.error} />}
          {deliveries.loading && <p class="loading">Loading the deliveries…</p>}
          {deliveries.data && (
            <>
              <DeliveryRows attempts={deliveries.data.data} onResend={resend} resending={resending} />
              <Pager label="Pages of deliveries" paging={paging} nextCursor={deliveries.data.nextCursor} />
            </>
          )}
          <h2>Delete</h2>
          <DeleteEndpoint
            session={props.session}
            endpointId={endpoint.id}
            url={endpoint.url}
            onDeleted={() => setDeleted(true)}
          />
        </>
      )}
    </>
  );
}
