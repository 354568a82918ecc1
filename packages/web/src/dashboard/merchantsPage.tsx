import { useEffect, useRef, useState } from 'preact/hooks';
import { idempotencyKey } from '../ui/api.ts';
import { CopyableId, ErrorNotice, failureMessage, PageHeading, usePageTitle } from '../ui/common.tsx';
import { formatDateTime } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { cursorPaging, Pager, PagedTable } from '../ui/pager.tsx';
import { type Location, navigate } from '../ui/router.ts';
import type { MerchantView, Session } from './apiTypes.ts';
import { createMerchant, loadMerchantPage, type MerchantFields } from './merchantsApi.ts';
import { MERCHANTS_PATH, merchantPath } from './paths.ts';
import { SubmitRow } from './submitRow.tsx';

/** Merchants a page shows. */
const PAGE_SIZE = '50';

/** A merchant's status in words, never by colour alone. */
export const MERCHANT_STATUS_LABELS: Record<string, string> = {
  active: 'Active',
  inactive: 'Inactive',
  suspended: 'Suspended',
};

/** The fields of a merchant's form, shared by adding and editing one. */
export function MerchantFieldInputs(props: { merchant?: MerchantView; logoHint: string }) {
  return (
    <div class="fields">
      <div class="field">
        <label for="merchant-name">Name</label>
        <input
          id="merchant-name"
          name="merchantName"
          type="text"
          required
          maxLength={200}
          autocomplete="organization"
          defaultValue={props.merchant?.name ?? ''}
        />
      </div>
      <div class="field">
        <label for="merchant-email">Email</label>
        <input
          id="merchant-email"
          name="merchantEmail"
          type="email"
          required
          maxLength={254}
          autocomplete="email"
          defaultValue={props.merchant?.email ?? ''}
        />
      </div>
      <div class="field">
        <label for="merchant-logo">Logo URL</label>
        <input
          id="merchant-logo"
          name="iconUrl"
          type="url"
          maxLength={2048}
          placeholder="https://"
          aria-describedby="merchant-logo-hint"
        />
        <p id="merchant-logo-hint" class="hint">
          {props.logoHint}
        </p>
      </div>
    </div>
  );
}

/**
 * Adding a merchant. The request carries an `Idempotency-Key` kept while the fields stay the same, so sending again
 * after a lost answer adds it once; other fields are another request.
 */
function AddMerchant(props: { session: Session; onAdded: (merchant: MerchantView) => void }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const sent = useRef<{ fields: string; key: string } | undefined>(undefined);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const iconUrl = String(data.get('iconUrl') ?? '').trim();
    const fields: MerchantFields = {
      merchantName: String(data.get('merchantName') ?? ''),
      merchantEmail: String(data.get('merchantEmail') ?? '').trim(),
      ...(iconUrl ? { iconUrl } : {}),
    };
    const asText = JSON.stringify(fields);
    if (sent.current?.fields !== asText) sent.current = { fields: asText, key: idempotencyKey() };
    setBusy(true);
    setFailure(undefined);
    try {
      const merchant = await createMerchant(props.session, fields, sent.current.key);
      sent.current = undefined;
      form.reset();
      props.onAdded(merchant);
    } catch (error) {
      setFailure(failureMessage(error as Error));
    }
    setBusy(false);
  };
  return (
    <details class="panel add-merchant">
      <summary>Add a merchant</summary>
      <form onSubmit={submit} aria-label="Add a merchant">
        <MerchantFieldInputs logoHint="Optional: a public HTTPS address of a square image, 500 to 4096 pixels; the service keeps a copy." />
        <SubmitRow busy={busy} failure={failure} failurePrefix="Not added" label="Add merchant" busyLabel="Adding…" />
      </form>
    </details>
  );
}

function MerchantRows(props: { merchants: MerchantView[] }) {
  return (
    <PagedTable id="merchant-rows" rows={props.merchants.length} empty="No merchants yet." caption="Merchants">
      <thead>
        <tr>
          <th scope="col">Merchant</th>
          <th scope="col">Email</th>
          <th scope="col">Status</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {props.merchants.map((merchant) => (
          <tr key={merchant.id} data-merchant-id={merchant.id}>
            <td data-label="Merchant">
              {/* One child: a phone's card lays out a cell's children as rows of its grid. */}
              <span>
                <a href={merchantPath(merchant.id)}>{merchant.name}</a>{' '}
                <CopyableId id={merchant.id} what={`merchant id of ${merchant.name}`} />
              </span>
            </td>
            <td data-label="Email">{merchant.email}</td>
            <td data-label="Status">
              <span class={`status status-${merchant.status}`}>{MERCHANT_STATUS_LABELS[merchant.status]}</span>
            </td>
            <td data-label="Created">{formatDateTime(merchant.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </PagedTable>
  );
}

/** The partner's merchants (`GET /v1/merchants`), a page at a time, and adding one. */
export function MerchantsPage(props: { session: Session; location: Location }) {
  usePageTitle('Merchants');
  const query = new URLSearchParams({ limit: props.location.query.get('limit') ?? PAGE_SIZE });
  const cursorOfPage = props.location.query.get('cursor');
  if (cursorOfPage) query.set('cursor', cursorOfPage);
  const key = query.toString();
  const merchants = useLiveData(
    key,
    (signal) => loadMerchantPage(query, signal),
    () => undefined,
  );
  const [added, setAdded] = useState<MerchantView | undefined>();

  // Another page replaces the rows and the button used: focus goes to the new rows.
  const focusRowsWhenShown = useRef(false);
  useEffect(() => {
    if (!focusRowsWhenShown.current || !merchants.data) return;
    focusRowsWhenShown.current = false;
    document.getElementById('merchant-rows')?.focus();
  }, [merchants.data]);
  const paging = cursorPaging(props.location, query, (shown, state) => {
    focusRowsWhenShown.current = true;
    if (shown.get('limit') === PAGE_SIZE) shown.delete('limit');
    navigate(shown.size ? `${MERCHANTS_PATH}?${shown}` : MERCHANTS_PATH, { state });
  });

  return (
    <>
      <PageHeading>Merchants</PageHeading>
      <AddMerchant
        session={props.session}
        onAdded={(merchant) => {
          setAdded(merchant);
          merchants.reload();
        }}
      />
      <p class={added ? 'notice' : 'visually-hidden'} role="status">
        {added && (
          <>
            Merchant <a href={merchantPath(added.id)}>{added.name}</a> added.
          </>
        )}
      </p>
      {merchants.error && <ErrorNotice error={merchants.error} />}
      {merchants.loading && <p class="loading">Loading the merchants…</p>}
      {merchants.data && (
        <>
          <MerchantRows merchants={merchants.data.data} />
          <Pager label="Pages of merchants" paging={paging} nextCursor={merchants.data.nextCursor} />
        </>
      )}
    </>
  );
}
