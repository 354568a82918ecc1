import { useState } from 'preact/hooks';
import { change, idempotencyKey } from '../ui/api.ts';
import { failureMessage } from '../ui/common.tsx';
import { ConfirmAction } from '../ui/confirmAction.tsx';
import type { MerchantDetail, Session } from './apiTypes.ts';
import type { NetworkDirectory } from './networks.ts';
import { SubmitRow } from './submitRow.tsx';

type CryptoDestination = MerchantDetail['settlements']['crypto'][number];

/** The CAIP-2 chain of a CAIP-19 asset (`caip19/` prefix or not). */
function chainOfAsset(asset: string): string {
  return asset.replace(/^caip19\//, '').split('/')[0] ?? '';
}

/** A CAIP-10 account as typed, or a bare address made one on the asset's chain. */
export function destinationAccount(asset: string, typed: string): string {
  const account = typed.trim();
  return /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}:/.test(account) ? account : `${chainOfAsset(asset)}:${account}`;
}

function settlementsPath(merchantId: string, destinationId?: string): string {
  const base = `/v1/merchants/${encodeURIComponent(merchantId)}/settlements/crypto`;
  return destinationId ? `${base}/${encodeURIComponent(destinationId)}` : base;
}

function tokenText(networks: NetworkDirectory | undefined, asset: string): string {
  const symbol = networks?.token(asset)?.symbol;
  return networks && symbol ? `${symbol} on ${networks.networkName(chainOfAsset(asset))}` : asset;
}

/** Adding a destination: a token the merchant has none for, picked by network, and the account to receive it. */
function AddDestination(props: {
  session: Session;
  merchant: MerchantDetail;
  networks: NetworkDirectory | undefined;
  onAdded: (text: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  // One key per destination asked for, so a retry after a lost answer adds it once.
  const [key, setKey] = useState(idempotencyKey);
  const taken = new Set(props.merchant.settlements.crypto.map((destination) => destination.asset.toLowerCase()));
  const networks = (props.networks?.networks ?? [])
    .map((network) => ({ ...network, tokens: network.tokens.filter((token) => !taken.has(token.asset.toLowerCase())) }))
    .filter((network) => network.tokens.length > 0);
  if (props.networks && networks.length === 0) {
    return <p class="hint">Every token the service accepts has a destination.</p>;
  }
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const asset = String(data.get('asset') ?? '');
    const destination = destinationAccount(asset, String(data.get('destination') ?? ''));
    setBusy(true);
    setFailure(undefined);
    try {
      await change('POST', settlementsPath(props.merchant.id), {
        csrfToken: props.session.csrfToken,
        headers: { 'idempotency-key': key },
        body: { settlements: [{ asset, destination }] },
      });
      form.reset();
      setKey(idempotencyKey());
      props.onAdded(`${tokenText(props.networks, asset)} now settles to ${destination}.`);
    } catch (error) {
      setFailure(failureMessage(error as Error));
    }
    setBusy(false);
  };
  return (
    <details class="panel">
      <summary>Add a settlement destination</summary>
      <form onSubmit={submit} aria-label="Add a settlement destination">
        <div class="fields">
          <div class="field">
            <label for="destination-asset">Token</label>
            <select id="destination-asset" name="asset" required onChange={() => setKey(idempotencyKey())}>
              {networks.map((network) => (
                <optgroup key={network.id} label={network.name}>
                  {network.tokens.map((token) => (
                    <option key={token.asset} value={token.asset}>
                      {token.symbol} on {network.name}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="destination-account">Receiving account</label>
            <input
              id="destination-account"
              name="destination"
              type="text"
              required
              maxLength={200}
              spellcheck={false}
              autocomplete="off"
              aria-describedby="destination-account-hint"
              onInput={() => setKey(idempotencyKey())}
            />
            <p id="destination-account-hint" class="hint">
              An address on the token's network (or its CAIP-10 id), of a wallet the merchant controls.
            </p>
          </div>
        </div>
        <SubmitRow
          busy={busy}
          failure={failure}
          failurePrefix="Not added"
          label="Add destination"
          busyLabel="Adding…"
        />
      </form>
    </details>
  );
}

/** Changing where a token settles: later batches go to the new account; a batch already made keeps its own. */
function ChangeDestination(props: {
  session: Session;
  merchantId: string;
  destination: CryptoDestination;
  label: string;
  onChanged: (text: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Change…
      </button>
    );
  }
  const fieldId = `new-destination-${props.destination.id}`;
  const submit = async (event: Event) => {
    event.preventDefault();
    const typed = String(new FormData(event.currentTarget as HTMLFormElement).get('destination') ?? '');
    const destination = destinationAccount(props.destination.asset, typed);
    setBusy(true);
    setFailure(undefined);
    try {
      await change('PUT', settlementsPath(props.merchantId, props.destination.id), {
        csrfToken: props.session.csrfToken,
        body: { destination },
      });
      props.onChanged(`${props.label} now settles to ${destination}; batches already made keep their account.`);
    } catch (error) {
      setFailure(failureMessage(error as Error));
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-label={`Change where ${props.label} settles`}>
      <div class="field">
        <label for={fieldId}>New receiving account</label>
        <input id={fieldId} name="destination" type="text" required maxLength={200} spellcheck={false} />
      </div>
      {failure && (
        <p class="error" role="alert">
          Not changed: {failure}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" disabled={busy} onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
    </form>
  );
}

/**
 * Where a merchant's succeeded payments settle, per token (D7, D16): added with a picker of the tokens the service
 * accepts, changed, removed; bank destinations, which the operator records, are listed.
 */
export function SettlementDestinations(props: {
  session: Session;
  merchant: MerchantDetail;
  networks: NetworkDirectory | undefined;
  onChanged: () => void;
}) {
  const { merchant } = props;
  const [done, setDone] = useState<string | undefined>();
  const changed = (text: string) => {
    setDone(text);
    props.onChanged();
  };
  return (
    <section aria-labelledby="destinations-heading">
      <h2 id="destinations-heading">Settlement destinations</h2>
      <p class="hint">
        Each token paid settles, net of fees, to the merchant's account for it; a token without one waits until it has
        one.
      </p>
      <p class={done ? 'notice' : 'visually-hidden'} role="status">
        {done}
      </p>
      {merchant.settlements.crypto.length === 0 ? (
        <p class="empty">No destination yet: payments are kept until one is added.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Crypto settlement destinations</caption>
            <thead>
              <tr>
                <th scope="col">Token</th>
                <th scope="col">Receiving account</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {merchant.settlements.crypto.map((destination) => {
                const label = tokenText(props.networks, destination.asset);
                return (
                  <tr key={destination.id} data-destination-id={destination.id}>
                    <td data-label="Token">{label}</td>
                    <td data-label="Receiving account">
                      <code class="hash">{destination.destination}</code>
                    </td>
                    <td data-label="Change">
                      <ChangeDestination
                        session={props.session}
                        merchantId={merchant.id}
                        destination={destination}
                        label={label}
                        onChanged={changed}
                      />
                      <ConfirmAction
                        askLabel="Remove…"
                        question={`Stop settling ${label} to ${destination.destination}? Its payments wait until another destination is added.`}
                        confirmLabel="Yes, remove it"
                        busyLabel="Removing…"
                        keepLabel="Keep it"
                        failurePrefix="Not removed"
                        onConfirm={async () => {
                          await change('DELETE', settlementsPath(merchant.id, destination.id), {
                            csrfToken: props.session.csrfToken,
                          });
                          changed(`${label} has no settlement destination now.`);
                        }}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <AddDestination session={props.session} merchant={merchant} networks={props.networks} onAdded={changed} />
      {merchant.settlements.fiat.length > 0 && (
        <>
          <h3>Bank destinations</h3>
          <p class="hint">Recorded by the operator; this service does not move money to banks.</p>
          <ul class="plain">
            {merchant.settlements.fiat.map((bank) => (
              <li key={bank.id}>
                {bank.bankType} ({bank.status}) <code>{bank.id}</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
