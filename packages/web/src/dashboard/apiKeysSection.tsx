import { useState } from 'preact/hooks';
import { ErrorNotice, failureMessage, WithCode } from '../ui/common.tsx';
import { ConfirmAction, ConfirmQuestion } from '../ui/confirmAction.tsx';
import { formatDateTime } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { SecretShownOnce } from '../ui/secretShownOnce.tsx';
import {
  type ApiKeyEntry,
  createApiKey,
  loadApiKeys,
  loadApiVersion,
  pinApiVersion,
  revokeApiKey,
} from './apiKeysApi.ts';
import type { Session } from './apiTypes.ts';
import { SubmitRow } from './submitRow.tsx';

/** What each scope lets a key do, in words. */
const SCOPE_TEXT: Record<string, string> = {
  merchants: 'Merchants, settlement destinations, webhooks and API keys',
  payments: 'Payments: create, read, cancel, refund; settlements and fees',
  gateway: "The wallet gateway: a payment's options, actions and confirmation",
  x402: 'Verify and settle x402 payments',
};

function CreateKey(props: { session: Session; onCreated: (key: ApiKeyEntry & { apiKey: string }) => void }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const scopes = new FormData(event.currentTarget as HTMLFormElement).getAll('scopes').map(String);
    if (scopes.length === 0) {
      setFailure('Choose at least one scope.');
      return;
    }
    setBusy(true);
    setFailure(undefined);
    try {
      props.onCreated(await createApiKey(props.session, scopes));
    } catch (error) {
      setFailure(failureMessage(error as Error));
      setBusy(false);
    }
  };
  return (
    <details class="panel">
      <summary>Create an API key</summary>
      <form onSubmit={submit} aria-label="Create an API key">
        <fieldset class="choices">
          <legend>Scopes: what the key may do</legend>
          {props.session.scopes.map((scope) => (
            <label key={scope} class="choice">
              <input type="checkbox" name="scopes" value={scope} /> <code>{scope}</code>{' '}
              <span class="hint">{SCOPE_TEXT[scope] ?? ''}</span>
            </label>
          ))}
          <p class="hint">A key can have only the scopes this session has.</p>
        </fieldset>
        <SubmitRow busy={busy} failure={failure} failurePrefix="Not created" label="Create key" busyLabel="Creating…" />
      </form>
    </details>
  );
}

function KeyRows(props: { session: Session; keys: ApiKeyEntry[]; onRevoked: () => void }) {
  if (props.keys.length === 0) return <p class="empty">No API keys.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">API keys</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {props.keys.map((key) => {
            const ownKey = key.keyId === props.session.keyId;
            return (
              <tr key={key.keyId} data-key-id={key.keyId}>
                <td data-label="Key">
                  <code>{key.prefix}…</code>
                  {ownKey && <span class="hint"> (this session's key)</span>}
                </td>
                <td data-label="Scopes">{key.scopes.join(', ')}</td>
                <td data-label="Created">{formatDateTime(key.createdAt)}</td>
                <td data-label="Status">
                  {key.revokedAt ? (
                    `Revoked ${formatDateTime(key.revokedAt)}`
                  ) : (
                    <ConfirmAction
                      askLabel={`Revoke ${key.prefix}…`}
                      question={`Revoke the key ${key.prefix}…? Every request with it is refused from then on${
                        ownKey ? ', and this session, signed in with it, ends' : ''
                      }. This cannot be undone.`}
                      confirmLabel="Yes, revoke the key"
                      busyLabel="Revoking…"
                      keepLabel="Keep the key"
                      failurePrefix="Not revoked"
                      onConfirm={async () => {
                        await revokeApiKey(props.session, key.keyId);
                        props.onRevoked();
                      }}
                    />
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The partner's API keys (`GET /v1/api-keys`): creating one (shown once) and revoking one. */
export function ApiKeysSection(props: { session: Session }) {
  const keys = useLiveData('api-keys', loadApiKeys, () => undefined);
  const [created, setCreated] = useState<(ApiKeyEntry & { apiKey: string }) | undefined>();
  return (
    <section aria-labelledby="api-keys-heading">
      <h2 id="api-keys-heading">API keys</h2>
      {created ? (
        <SecretShownOnce
          heading="API key created"
          label="API key"
          secret={created.apiKey}
          warning={
            <>
              <strong>Copy this key now.</strong> It is shown only this once; the service keeps only its hash.
            </>
          }
          onDone={() => setCreated(undefined)}
        />
      ) : (
        <CreateKey
          session={props.session}
          onCreated={(key) => {
            setCreated(key);
            keys.reload();
          }}
        />
      )}
      {keys.error && <ErrorNotice error={keys.error} />}
      {keys.loading && <p class="loading">Loading the API keys…</p>}
      {keys.data && <KeyRows session={props.session} keys={keys.data} onRevoked={keys.reload} />}
    </section>
  );
}

/**
 * The partner's API version pin (`GET /v1/api-version`): what requests without `Pay-Version` run under, and moving it
 * to a newer version, which only a session with every scope may do.
 */
export function ApiVersionSection(props: { session: Session; allScopes: readonly string[] }) {
  const pin = useLiveData('api-version', loadApiVersion, () => undefined);
  const [chosen, setChosen] = useState<string | undefined>();
  const [pinned, setPinned] = useState<string | undefined>();
  const mayPin = props.allScopes.every((scope) => props.session.scopes.includes(scope));
  const current = pin.data?.pinnedVersion;
  const newer = pin.data?.versions.filter((entry) => current !== undefined && entry.version > current) ?? [];
  const review = (event: Event) => {
    event.preventDefault();
    setPinned(undefined);
    setChosen(String(new FormData(event.currentTarget as HTMLFormElement).get('version') ?? ''));
  };
  return (
    <section aria-labelledby="api-version-heading">
      <h2 id="api-version-heading">API version</h2>
      {pin.error && <ErrorNotice error={pin.error} />}
      {pin.loading && <p class="loading">Loading the API version…</p>}
      {pin.data && (
        <>
          <p>
            Requests without a <code>Pay-Version</code> header run under <strong>{current}</strong>:{' '}
            <WithCode text={pin.data.versions.find((entry) => entry.version === current)?.description ?? ''} />
          </p>
          {pinned && (
            <p class="notice" role="status">
              Pinned to {pinned}.
            </p>
          )}
          {!mayPin ? (
            <p class="hint">Only a session signed in with every scope may change the pin.</p>
          ) : newer.length === 0 ? (
            <p class="hint">This is the newest version.</p>
          ) : chosen ? (
            <ConfirmQuestion
              question={`Pin the API version ${chosen}? Every request of every key without a Pay-Version header runs under it at once; the pin cannot be moved back from the dashboard.`}
              confirmLabel={`Yes, pin ${chosen}`}
              busyLabel="Pinning…"
              keepLabel={`Keep ${current}`}
              failurePrefix="Not pinned"
              onConfirm={async () => {
                await pinApiVersion(props.session, chosen);
                setChosen(undefined);
                setPinned(chosen);
                pin.reload();
              }}
              onKeep={() => setChosen(undefined)}
            />
          ) : (
            <form onSubmit={review} aria-label="Pin a newer API version">
              <div class="field">
                <label for="api-version">Newer version</label>
                <select id="api-version" name="version">
                  {newer.map((entry) => (
                    <option key={entry.version} value={entry.version}>
                      {entry.version}
                    </option>
                  ))}
                </select>
              </div>
              <ul class="plain hint">
                {newer.map((entry) => (
                  <li key={entry.version}>
                    <strong>{entry.version}</strong>: <WithCode text={entry.description} />
                  </li>
                ))}
              </ul>
              <div class="actions">
                <button type="submit">Pin this version…</button>
              </div>
            </form>
          )}
        </>
      )}
    </section>
  );
}
