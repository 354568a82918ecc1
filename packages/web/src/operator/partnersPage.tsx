import { useState } from 'preact/hooks';
import { ErrorNotice, failureMessage, PageHeading, usePageTitle } from '../ui/common.tsx';
import { formatDateTime } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { SecretShownOnce } from '../ui/secretShownOnce.tsx';
import { dataThresholdText } from './dataThreshold.ts';
import { feesText } from './fees.ts';
import {
  type CreatedPartner,
  createPartner,
  listPartners,
  type OperatorSession,
  type PartnerSummary,
} from './operatorApi.ts';
import { CONSOLE_NAME, MERCHANTS_PATH, partnerPath } from './paths.ts';

const count = new Intl.NumberFormat();

function CreatePartnerForm(props: {
  session: OperatorSession;
  onCreated: (name: string, created: CreatedPartner) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const field = (event.currentTarget as HTMLFormElement).elements.namedItem('name') as HTMLInputElement;
    const name = field.value.trim();
    setBusy(true);
    setFailure(undefined);
    try {
      props.onCreated(name, await createPartner(props.session, name));
    } catch (error) {
      setFailure(failureMessage(error as Error));
      setBusy(false);
      field.focus();
    }
  };
  return (
    <form class="panel create-partner" onSubmit={submit} aria-labelledby="create-partner-heading">
      <h2 id="create-partner-heading">Add a partner</h2>
      <div class="field">
        <label for="partner-name">Name</label>
        <input
          id="partner-name"
          name="name"
          type="text"
          required
          maxLength={200}
          autocomplete="off"
          aria-describedby={failure ? 'partner-name-hint create-partner-failure' : 'partner-name-hint'}
        />
        <p id="partner-name-hint" class="hint">
          The partner gets an API key with every scope, shown once, and a wallet app.
        </p>
      </div>
      {failure && (
        <p id="create-partner-failure" class="error" role="alert">
          Not created: {failure}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create partner'}
        </button>
      </div>
    </form>
  );
}

/** A new partner's API key, shown this once, and its ids. */
function CreatedKey(props: { name: string; created: CreatedPartner; onDone: () => void }) {
  const { created } = props;
  return (
    <SecretShownOnce
      heading={`Partner ${props.name} created`}
      label="API key"
      secret={created.apiKey}
      warning={
        <>
          <strong>Copy this API key now and keep it secret.</strong> It is shown only this once: the service keeps only
          its hash. Whoever has it acts for the partner with every scope.
        </>
      }
      onDone={props.onDone}
    >
      <dl class="facts">
        <div class="fact">
          <dt>Partner id</dt>
          <dd>
            <code>{created.partnerId}</code>
          </dd>
        </div>
        <div class="fact">
          <dt>Wallet app (App-Id)</dt>
          <dd>
            <code>{created.appId}</code>
          </dd>
        </div>
      </dl>
    </SecretShownOnce>
  );
}

function PartnerRows(props: { partners: PartnerSummary[] }) {
  if (props.partners.length === 0) return <p class="empty">No partners yet.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Partners</caption>
        <thead>
          <tr>
            <th scope="col">Partner</th>
            <th scope="col">Fees</th>
            <th scope="col">API version</th>
            <th scope="col">Buyer data</th>
            <th scope="col">Merchants</th>
            <th scope="col">Active keys</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {props.partners.map((partner) => (
            <tr key={partner.partnerId} data-partner-id={partner.partnerId}>
              <td data-label="Partner">
                <a href={partnerPath(partner.partnerId)}>{partner.name}</a>{' '}
                <code class="hash">{partner.partnerId}</code>
              </td>
              <td data-label="Fees">{feesText(partner.fees)}</td>
              <td data-label="API version">
                <code>{partner.pinnedVersion}</code>
              </td>
              <td data-label="Buyer data">{dataThresholdText(partner.dataThreshold)}</td>
              <td data-label="Merchants">
                <a href={`${MERCHANTS_PATH}?${new URLSearchParams({ partnerId: partner.partnerId })}`}>
                  {count.format(partner.merchants)}
                  <span class="visually-hidden"> merchants of {partner.name}</span>
                </a>
              </td>
              <td data-label="Active keys">{count.format(partner.activeKeys)}</td>
              <td data-label="Created">{formatDateTime(partner.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Every partner with its fees, version, buyer-data threshold and counts, and adding one (its API key shown once). */
export function PartnersPage(props: { session: OperatorSession }) {
  usePageTitle('Partners', CONSOLE_NAME);
  const partners = useLiveData('partners', listPartners, () => undefined);
  const [created, setCreated] = useState<{ name: string; created: CreatedPartner } | undefined>();
  return (
    <>
      <PageHeading>Partners</PageHeading>
      {created ? (
        <CreatedKey name={created.name} created={created.created} onDone={() => setCreated(undefined)} />
      ) : (
        <CreatePartnerForm
          session={props.session}
          onCreated={(name, partner) => {
            setCreated({ name, created: partner });
            partners.reload();
          }}
        />
      )}
      <h2>All partners</h2>
      {partners.error && <ErrorNotice error={partners.error} />}
      {partners.loading && <p class="loading">Loading the partners…</p>}
      {partners.data && <PartnerRows partners={partners.data} />}
    </>
  );
}
