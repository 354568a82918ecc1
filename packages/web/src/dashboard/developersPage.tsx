import { useState } from 'preact/hooks';
import { ErrorNotice, failureMessage, PageHeading, usePageTitle } from '../ui/common.tsx';
import { formatDateTime } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { SecretShownOnce } from '../ui/secretShownOnce.tsx';
import { ApiKeysSection, ApiVersionSection } from './apiKeysSection.tsx';
import type { MerchantView, Session, WebhookEndpointView } from './apiTypes.ts';
import { webhookPath } from './paths.ts';
import { loadMerchants } from './paymentsApi.ts';
import type { DashboardSettings } from './settings.ts';
import { SubmitRow } from './submitRow.tsx';
import { createWebhookEndpoint, loadWebhookEndpoints } from './webhooksApi.ts';

/** The most event types one endpoint takes (the API's limit). */
const MAX_EVENTS = 8;

/** Whose events an endpoint gets: one merchant's, or every merchant's. */
export function merchantText(merchantId: string | null, merchants: MerchantView[] | undefined): string {
  if (!merchantId) return 'All merchants';
  return merchants?.find((merchant) => merchant.id === merchantId)?.name ?? merchantId;
}

function AddEndpoint(props: {
  session: Session;
  eventTypes: string[];
  merchants: MerchantView[] | undefined;
  onAdded: (endpoint: WebhookEndpointView & { secret: string }) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const events = data.getAll('events').map(String);
    if (events.length === 0 || events.length > MAX_EVENTS) {
      setFailure(`Choose 1 to ${MAX_EVENTS} events.`);
      return;
    }
    const merchantId = String(data.get('merchantId') ?? '');
    setBusy(true);
    setFailure(undefined);
    try {
      const url = String(data.get('url') ?? '').trim();
      props.onAdded(await createWebhookEndpoint(props.session, { url, events, ...(merchantId ? { merchantId } : {}) }));
    } catch (error) {
      setFailure(failureMessage(error as Error));
      setBusy(false);
    }
  };
  return (
    <details class="panel">
      <summary>Add a webhook endpoint</summary>
      <form onSubmit={submit} aria-label="Add a webhook endpoint">
        <div class="fields">
          <div class="field">
            <label for="webhook-url">URL</label>
            <input
              id="webhook-url"
              name="url"
              type="url"
              required
              maxLength={2048}
              placeholder="https://"
              aria-describedby="webhook-url-hint"
            />
            <p id="webhook-url-hint" class="hint">
              A public HTTPS address; each event is POSTed to it, signed.
            </p>
          </div>
          <div class="field">
            <label for="webhook-merchant">Merchant</label>
            <select id="webhook-merchant" name="merchantId">
              <option value="">All merchants</option>
              {props.merchants?.map((merchant) => (
                <option key={merchant.id} value={merchant.id}>
                  {merchant.name}
                </option>
              ))}
            </select>
          </div>
        </div>
        <fieldset class="choices">
          <legend>Events (1 to {MAX_EVENTS})</legend>
          {props.eventTypes.map((type) => (
            <label key={type} class="choice">
              <input type="checkbox" name="events" value={type} /> <code>{type}</code>
            </label>
          ))}
        </fieldset>
        <SubmitRow busy={busy} failure={failure} failurePrefix="Not added" label="Add endpoint" busyLabel="Adding…" />
      </form>
    </details>
  );
}

function EndpointRows(props: { endpoints: WebhookEndpointView[]; merchants: MerchantView[] | undefined }) {
  if (props.endpoints.length === 0) return <p class="empty">No webhook endpoints yet.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Webhook endpoints</caption>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Merchant</th>
            <th scope="col">Added</th>
          </tr>
        </thead>
        <tbody>
          {props.endpoints.map((endpoint) => (
            <tr key={endpoint.id} data-endpoint-id={endpoint.id}>
              <td data-label="URL">
                <a href={webhookPath(endpoint.id)} class="hash">
                  {endpoint.url}
                </a>
              </td>
              <td data-label="Events">{endpoint.events.join(', ')}</td>
              <td data-label="Merchant">{merchantText(endpoint.merchantId, props.merchants)}</td>
              <td data-label="Added">{formatDateTime(endpoint.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Developers: the partner's API keys and API version pin, and its webhook endpoints (`GET /v1/webhooks`), adding one
 * (its signing secret shown once); an endpoint's page shows its deliveries.
 */
export function DevelopersPage(props: { session: Session; settings: DashboardSettings }) {
  usePageTitle('Developers');
  const endpoints = useLiveData('webhooks', loadWebhookEndpoints, () => undefined);
  const merchants = useLiveData('merchants', loadMerchants, () => undefined);
  const [added, setAdded] = useState<(WebhookEndpointView & { secret: string }) | undefined>();
  return (
    <>
      <PageHeading>Developers</PageHeading>
      <ApiKeysSection session={props.session} />
      <ApiVersionSection session={props.session} allScopes={props.settings.scopes} />
      <h2>Webhook endpoints</h2>
      {added ? (
        <SecretShownOnce
          heading="Webhook endpoint added"
          label="Signing secret"
          secret={added.secret}
          warning={
            <>
              <strong>Copy this signing secret now.</strong> It is shown only this once; your receiver checks each
              event's Pay-Signature with it.
            </>
          }
          onDone={() => setAdded(undefined)}
        />
      ) : (
        <AddEndpoint
          session={props.session}
          eventTypes={props.settings.webhookEventTypes}
          merchants={merchants.data}
          onAdded={(endpoint) => {
            setAdded(endpoint);
            endpoints.reload();
          }}
        />
      )}
      {endpoints.error && <ErrorNotice error={endpoints.error} />}
      {endpoints.loading && <p class="loading">Loading the webhook endpoints…</p>}
      {endpoints.data && <EndpointRows endpoints={endpoints.data} merchants={merchants.data} />}
    </>
  );
}
