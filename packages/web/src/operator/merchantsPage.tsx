import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNotice, PageHeading, usePageTitle } from '../ui/common.tsx';
import { ConfirmQuestion } from '../ui/confirmAction.tsx';
import { FilterActions, PageSizeField } from '../ui/filterFields.tsx';
import { formatDateTime } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { cursorPaging, Pager, PagedTable } from '../ui/pager.tsx';
import { type Location, navigate } from '../ui/router.ts';
import {
  listMerchants,
  listPartners,
  MERCHANT_STATUSES,
  type MerchantStatus,
  type MerchantSummary,
  type OperatorSession,
  setMerchantStatus,
} from './operatorApi.ts';
import { CONSOLE_NAME, MERCHANTS_PATH } from './paths.ts';

const STATUS_LABELS: Record<MerchantStatus, string> = {
  active: 'Active',
  inactive: 'Inactive',
  suspended: 'Suspended',
};
const PAGE_SIZES = ['25', '50', '100', '200'];
/** The API's default page size. */
const DEFAULT_PAGE_SIZE = '50';

/** The API query of the page's address: its own parameters only, without empty values. */
function merchantQueryOf(pageQuery: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ['partnerId', 'status', 'limit', 'cursor']) {
    const value = pageQuery.get(name)?.trim();
    if (value) query.set(name, value);
  }
  return query;
}

/** A status change asked for, waiting for its confirmation. */
interface StatusChange {
  merchant: MerchantSummary;
  status: MerchantStatus;
}

/** What a change does, in words, for its confirmation. */
function consequence(change: StatusChange): string {
  const { merchant, status } = change;
  if (status === 'suspended') {
    return `Suspend ${merchant.name}? ${merchant.partnerName} can take no new payments for it until it is reactivated.`;
  }
  return `Reactivate ${merchant.name}? ${merchant.partnerName} can take payments for it again.`;
}

function MerchantRows(props: { merchants: MerchantSummary[]; onChange: (change: StatusChange) => void }) {
  return (
    <PagedTable
      id="merchant-rows"
      rows={props.merchants.length}
      empty="No merchants match these filters."
      caption="Merchants"
    >
      <thead>
        <tr>
          <th scope="col">Merchant</th>
          <th scope="col">Email</th>
          <th scope="col">Partner</th>
          <th scope="col">Status</th>
          <th scope="col">Created</th>
          <th scope="col">
            <span class="visually-hidden">Change</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.merchants.map((merchant) => (
          <tr key={merchant.merchantId} data-merchant-id={merchant.merchantId}>
            <td data-label="Merchant">
              {merchant.name} <code class="hash">{merchant.merchantId}</code>
            </td>
            <td data-label="Email">{merchant.email}</td>
            <td data-label="Partner">{merchant.partnerName}</td>
            <td data-label="Status">
              <span class={`status status-${merchant.status}`}>{STATUS_LABELS[merchant.status]}</span>
              {merchant.deleted && <span class="status status-deleted">Deleted</span>}
            </td>
            <td data-label="Created">{formatDateTime(merchant.createdAt)}</td>
            <td data-label="Change">
              {!merchant.deleted && (
                <button
                  type="button"
                  onClick={() =>
                    props.onChange({ merchant, status: merchant.status === 'active' ? 'suspended' : 'active' })
                  }
                >
                  {merchant.status === 'active' ? 'Suspend' : 'Reactivate'}
                  <span class="visually-hidden"> {merchant.name}</span>
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </PagedTable>
  );
}

/**
 * The merchants of every partner (`GET /operator/api/merchants`), filtered by partner and status in the address,
 * a page at a time; suspending or reactivating one asks for a confirmation first.
 */
export function MerchantsPage(props: { session: OperatorSession; location: Location }) {
  usePageTitle('Merchants', CONSOLE_NAME);
  const query = merchantQueryOf(props.location.query);
  const key = query.toString();
  const merchants = useLiveData(
    key,
    (signal) => listMerchants(query, signal),
    () => undefined,
  );
  const partners = useLiveData('partners', listPartners, () => undefined);
  const [change, setChange] = useState<StatusChange | undefined>();
  const [changed, setChanged] = useState<string | undefined>();
  const partnerId = query.get('partnerId') ?? '';
  const status = query.get('status') ?? '';
  const limit = query.get('limit') ?? DEFAULT_PAGE_SIZE;

  // Another page or other filters replace the rows and the controls used: focus goes to the new rows.
  const focusRowsWhenShown = useRef(false);
  useEffect(() => {
    if (!focusRowsWhenShown.current || !merchants.data) return;
    focusRowsWhenShown.current = false;
    document.getElementById('merchant-rows')?.focus();
  }, [merchants.data]);

  const show = (shown: URLSearchParams, state: unknown = null) => {
    focusRowsWhenShown.current = shown.toString() !== key;
    setChange(undefined);
    setChanged(undefined);
    navigate(shown.size ? `${MERCHANTS_PATH}?${shown}` : MERCHANTS_PATH, { state });
  };
  const apply = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    // The first page of the chosen filters; the API's default page size stays out of the address.
    const chosen = new URLSearchParams();
    for (const name of ['partnerId', 'status', 'limit']) chosen.set(name, String(data.get(name) ?? ''));
    if (chosen.get('limit') === DEFAULT_PAGE_SIZE) chosen.delete('limit');
    show(merchantQueryOf(chosen));
  };
  const paging = cursorPaging(props.location, query, show);

  return (
    <>
      <PageHeading>Merchants</PageHeading>
      <form class="filters panel" onSubmit={apply} aria-label="Filters" key={key}>
        <div class="fields">
          <div class="field">
            <label for="filter-partner">Partner</label>
            <select id="filter-partner" name="partnerId">
              <option value="">All partners</option>
              {partners.data?.map((partner) => (
                <option key={partner.partnerId} value={partner.partnerId} selected={partner.partnerId === partnerId}>
                  {partner.name}
                </option>
              ))}
              {partnerId && !partners.data?.some((partner) => partner.partnerId === partnerId) && (
                <option value={partnerId} selected>
                  {partnerId}
                </option>
              )}
            </select>
          </div>
          <div class="field">
            <label for="filter-status">Status</label>
            <select id="filter-status" name="status">
              <option value="">Any status</option>
              {MERCHANT_STATUSES.map((each) => (
                <option key={each} value={each} selected={each === status}>
                  {STATUS_LABELS[each]}
                </option>
              ))}
            </select>
          </div>
          <PageSizeField sizes={PAGE_SIZES} selected={limit} />
        </div>
        <FilterActions onClear={() => show(new URLSearchParams())} />
      </form>
      {change && (
        // A new change asked for is a new question, which takes the focus again.
        <ConfirmQuestion
          key={`${change.merchant.merchantId}:${change.status}`}
          question={consequence(change)}
          confirmLabel={`Yes, ${change.status === 'suspended' ? 'suspend' : 'reactivate'}`}
          busyLabel="Changing…"
          keepLabel="Keep it as it is"
          failurePrefix="Not changed"
          tone={change.status === 'suspended' ? 'danger' : 'primary'}
          onKeep={() => setChange(undefined)}
          onConfirm={async () => {
            await setMerchantStatus(props.session, change.merchant.merchantId, change.status);
            setChange(undefined);
            setChanged(`${change.merchant.name} is ${change.status === 'suspended' ? 'suspended' : 'active again'}.`);
            merchants.reload();
          }}
        />
      )}
      <p class={changed ? 'notice' : 'visually-hidden'} role="status">
        {changed}
      </p>
      {merchants.error && <ErrorNotice error={merchants.error} />}
      {merchants.loading && <p class="loading">Loading the merchants…</p>}
      {merchants.data && (
        <>
          <MerchantRows merchants={merchants.data.data} onChange={setChange} />
          <Pager label="Pages of merchants" paging={paging} nextCursor={merchants.data.nextCursor} />
        </>
      )}
    </>
  );
}
