import { useEffect, useRef, useState } from 'preact/hooks';
import { getFile } from '../ui/api.ts';
import { ErrorNotice, PageHeading, usePageTitle } from '../ui/common.tsx';
import { formatDateTime, formatFiat } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { PagedTable } from '../ui/pager.tsx';
import { type Location, navigate } from '../ui/router.ts';
import type { PaymentItem } from './apiTypes.ts';
import type { NetworkDirectory } from './networks.ts';
import { PAYMENTS_PATH, paymentPath } from './paths.ts';
import { PaymentFilters } from './paymentFilters.tsx';
import { PaymentStats } from './paymentStats.tsx';
import { listVersionOf, loadMerchants, loadPaymentList } from './paymentsApi.ts';
import { listQueryOf, withParameters } from './paymentsQuery.ts';
import type { DashboardSettings } from './settings.ts';
import { PaymentStatusBadges } from './statusBadges.tsx';

/** How often an open list asks the API again, so new payments and changed statuses show without a reload. */
export const LIST_REFRESH_MS = 5_000;

/** The cursors of the pages before this one, kept in the history entry, for Previous. */
interface PagingState {
  previousCursors: string[];
}

function PaymentRows(props: { payments: PaymentItem[]; page: number | undefined }) {
  return (
    <PagedTable
      id="payment-rows"
      rows={props.payments.length}
      empty="No payments match these filters."
      caption={`Payments${props.page ? `, page ${props.page}` : ''}`}
      tableClass="payments"
    >
      <thead>
        <tr>
          <th scope="col">Reference</th>
          <th scope="col">Merchant</th>
          <th scope="col" class="amount">
            Amount
          </th>
          <th scope="col">Status</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {props.payments.map((payment) => (
          <tr key={payment.paymentId} data-payment-id={payment.paymentId}>
            <td data-label="Reference">
              <a href={paymentPath(payment.paymentId, payment.merchant.id)}>{payment.referenceId}</a>
            </td>
            <td data-label="Merchant">{payment.merchant.name ?? payment.merchant.id}</td>
            <td data-label="Amount" class="amount">
              {payment.fiatAmount ? formatFiat(payment.fiatAmount) : '—'}
            </td>
            <td data-label="Status">
              <PaymentStatusBadges payment={payment} />
            </td>
            <td data-label="Created">
              <time dateTime={payment.createdAt}>{formatDateTime(payment.createdAt)}</time>
            </td>
          </tr>
        ))}
      </tbody>
    </PagedTable>
  );
}

/**
 * The export of the list's filters and order. A link streams the file to disk; but a list filtered by Cancelled is
 * the list's API version's (a link cannot name a version), so that export is fetched under it and saved from memory.
 */
function ExportCsv(props: { query: URLSearchParams; version: string | undefined }) {
  const [exporting, setExporting] = useState(false);
  const [failure, setFailure] = useState<Error | undefined>();
  const href = `/v1/payments/export?${props.query}`;
  const { version } = props;
  const save = async (listVersion: string) => {
    setExporting(true);
    setFailure(undefined);
    try {
      const { file, name } = await getFile(href, { headers: { 'pay-version': listVersion } });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(file);
      link.download = name ?? 'payments.csv';
      link.click();
      // The download has its own copy once it starts; the address is freed after.
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    } catch (error) {
      setFailure(error as Error);
    } finally {
      setExporting(false);
    }
  };
  return (
    <>
      <p class="export">
        {version && props.query.getAll('status').includes('cancelled') ? (
          <button type="button" class="button" disabled={exporting} onClick={() => save(version)}>
            {exporting ? 'Exporting…' : 'Export CSV'}
          </button>
        ) : (
          <a class="button" href={href} download>
            Export CSV
          </a>
        )}{' '}
        <span class="hint">Every payment these filters match, in this order; amounts in minor units.</span>
      </p>
      {failure && <ErrorNotice error={failure} prefix="Not exported:" />}
    </>
  );
}

/**
 * The partner's payments (`GET /v1/payments`): filters kept in the address, the statistics and counts by status,
 * a page of payments and cursor paging. It asks the API again every few seconds while open.
 */
export function PaymentsPage(props: {
  location: Location;
  networks: NetworkDirectory | undefined;
  settings: DashboardSettings;
}) {
  usePageTitle('Payments');
  const query = listQueryOf(props.location.query);
  const key = query.toString();
  const listVersion = listVersionOf(props.settings);
  const live = useLiveData(
    key,
    (signal) => loadPaymentList(query, listVersion, signal),
    () => LIST_REFRESH_MS,
  );
  const merchants = useLiveData('merchants', loadMerchants, () => undefined);
  const previousCursors = (props.location.state as PagingState | null)?.previousCursors ?? [];
  const cursor = query.get('cursor');

  // Another page or other filters replace the rows and the controls used: focus goes to the new rows, so a keyboard
  // or a screen reader goes on from their start.
  const focusRowsWhenShown = useRef(false);
  useEffect(() => {
    if (!focusRowsWhenShown.current || !live.data) return;
    focusRowsWhenShown.current = false;
    document.getElementById('payment-rows')?.focus();
  }, [live.data]);

  const show = (shown: URLSearchParams, state: PagingState | null = null) => {
    focusRowsWhenShown.current = shown.toString() !== key;
    navigate(shown.size ? `${PAYMENTS_PATH}?${shown}` : PAYMENTS_PATH, { state });
  };
  const next = (nextCursor: string) =>
    show(withParameters(query, { cursor: nextCursor }), { previousCursors: [...previousCursors, cursor ?? ''] });
  const previous = () =>
    show(withParameters(query, { cursor: previousCursors.at(-1) || undefined }), {
      previousCursors: previousCursors.slice(0, -1),
    });
  const filtersKey = withParameters(query, { cursor: undefined }).toString();
  // The export takes the list's filters and order, and streams every page itself.
  const exportQuery = withParameters(query, { cursor: undefined, limit: undefined });
  // A page opened from a shared address with a cursor does not know how many pages came before it.
  const pageNumber = cursor && previousCursors.length === 0 ? undefined : previousCursors.length + 1;

  return (
    <>
      <PageHeading>Payments</PageHeading>
      {query.get('paymentLinkId') && (
        <p class="notice" data-link-filter>
          Only the payments of payment link <code>{query.get('paymentLinkId')}</code>.{' '}
          <a href={`${PAYMENTS_PATH}?${withParameters(query, { paymentLinkId: undefined, cursor: undefined })}`}>
            Show every payment
          </a>
        </p>
      )}
      <PaymentFilters
        key={filtersKey}
        query={query}
        merchants={merchants.data}
        networks={props.networks}
        offerCancelled={listVersion !== undefined}
        onApply={(applied) => show(applied)}
      />
      {live.error && <ErrorNotice error={live.error} prefix={live.data ? 'Could not refresh the list:' : undefined} />}
      {live.loading && <p class="loading">Loading payments…</p>}
      {live.data && (
        <>
          <PaymentStats view={live.data} query={query} />
          <ExportCsv query={exportQuery} version={listVersion} />
          <PaymentRows payments={live.data.list.data} page={pageNumber} />
          <nav class="pager" aria-label="Pages of payments">
            <button type="button" disabled={!cursor} onClick={previous}>
              Previous
            </button>
            {pageNumber && <span>Page {pageNumber}</span>}
            <button
              type="button"
              disabled={!live.data.list.nextCursor}
              onClick={() => live.data?.list.nextCursor && next(live.data.list.nextCursor)}
            >
              Next
            </button>
          </nav>
          {live.loadedAt && (
            <p class="hint updated">
              Updated {live.loadedAt.toLocaleTimeString()}; the list refreshes every {LIST_REFRESH_MS / 1000} seconds.
            </p>
          )}
        </>
      )}
    </>
  );
}
