import { useEffect, useRef } from 'preact/hooks';
import { ErrorNotice, PageHeading, usePageTitle } from '../ui/common.tsx';
import { FilterActions } from '../ui/filterFields.tsx';
import { formatDateTime, formatFiat, formatTokenExact } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { cursorPaging, Pager, PagedTable } from '../ui/pager.tsx';
import { type Location, navigate } from '../ui/router.ts';
import type { MerchantView } from './apiTypes.ts';
import { MerchantFilterField } from './merchantFilterField.tsx';
import type { NetworkDirectory } from './networks.ts';
import { SETTLEMENTS_PATH, settlementBatchPath } from './paths.ts';
import { loadMerchants } from './paymentsApi.ts';
import {
  type FeesReportAnswer,
  loadFeesReport,
  loadSettlementBatches,
  type SettlementBatchView,
} from './settlementsApi.ts';
import { TransactionHash } from './transactionHash.tsx';

/** A batch's status in words, never by colour alone. */
export const SETTLEMENT_STATUS_LABELS: Record<SettlementBatchView['status'], string> = {
  claimed: 'Preparing',
  sent: 'Sent',
  confirmed: 'Confirmed',
  failed: 'Failed',
};

export function SettlementStatus(props: { status: SettlementBatchView['status'] }) {
  return <span class={`status status-${props.status}`}>{SETTLEMENT_STATUS_LABELS[props.status]}</span>;
}

/** The token a batch is in, as the API names it, else as the networks list it. */
export function tokenOfBatch(
  batch: Pick<SettlementBatchView, 'asset' | 'symbol' | 'decimals'>,
  networks: NetworkDirectory | undefined,
): { symbol: string; decimals: number } | undefined {
  if (batch.symbol !== null && batch.decimals !== null) return { symbol: batch.symbol, decimals: batch.decimals };
  return networks?.token(batch.asset);
}

/** A merchant's name where the page knows it, else its id. */
export function merchantName(merchantId: string, merchants: MerchantView[] | undefined): string {
  return merchants?.find((merchant) => merchant.id === merchantId)?.name ?? merchantId;
}

/** The filters the list takes, as they stand in the page's address. */
const FILTERS = ['merchantId', 'status'] as const;

function SettlementFilters(props: {
  query: URLSearchParams;
  merchants: MerchantView[] | undefined;
  onApply: (query: URLSearchParams) => void;
}) {
  const merchantId = props.query.get('merchantId') ?? '';
  const status = props.query.get('status') ?? '';
  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const applied = new URLSearchParams();
    for (const name of FILTERS) {
      const value = String(data.get(name) ?? '').trim();
      if (value) applied.set(name, value);
    }
    props.onApply(applied);
  };
  return (
    <form class="filters" onSubmit={submit} aria-label="Filters">
      <div class="fields">
        <MerchantFilterField id="settlement-merchant" merchants={props.merchants} selected={merchantId} />
        <div class="field">
          <label for="settlement-status">Status</label>
          <select id="settlement-status" name="status">
            <option value="">Any status</option>
            {Object.entries(SETTLEMENT_STATUS_LABELS).map(([value, label]) => (
              <option key={value} value={value} selected={value === status}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <FilterActions onClear={() => props.onApply(new URLSearchParams())} />
    </form>
  );
}

function BatchRows(props: {
  batches: SettlementBatchView[];
  page: number | undefined;
  merchants: MerchantView[] | undefined;
  networks: NetworkDirectory | undefined;
}) {
  return (
    <PagedTable
      id="batch-rows"
      rows={props.batches.length}
      empty="No settlements match these filters."
      caption={`Settlement batches${props.page ? `, page ${props.page}` : ''}`}
    >
      <thead>
        <tr>
          <th scope="col">Made</th>
          <th scope="col">Merchant</th>
          <th scope="col" class="amount">
            Amount
          </th>
          <th scope="col" class="amount">
            Fees
          </th>
          <th scope="col" class="amount">
            Payments
          </th>
          <th scope="col">Status</th>
          <th scope="col">Transaction</th>
        </tr>
      </thead>
      <tbody>
        {props.batches.map((batch) => {
          const token = tokenOfBatch(batch, props.networks);
          return (
            <tr key={batch.id} data-batch-id={batch.id}>
              <td data-label="Made">
                <a href={settlementBatchPath(batch.id)}>
                  <time dateTime={batch.createdAt}>{formatDateTime(batch.createdAt)}</time>
                </a>
              </td>
              <td data-label="Merchant">{merchantName(batch.merchantId, props.merchants)}</td>
              <td data-label="Amount" class="amount">
                {formatTokenExact(batch.amount, token)}
              </td>
              <td data-label="Fees" class="amount">
                {formatTokenExact(batch.fees, token)}
              </td>
              <td data-label="Payments" class="amount">
                {batch.paymentCount}
              </td>
              <td data-label="Status">
                <SettlementStatus status={batch.status} />
              </td>
              <td data-label="Transaction">
                {batch.txHash ? (
                  <TransactionHash hash={batch.txHash} chain={batch.network} networks={props.networks} short />
                ) : (
                  '—'
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </PagedTable>
  );
}

/** The fee schedule in words: `1.5% + 0.30 USD`, each currency's fixed fee after the percentage. */
function scheduleText(schedule: FeesReportAnswer['schedule']): string {
  const fixed = schedule.fixed.map((fee) => formatFiat({ unit: `iso4217/${fee.currency}`, value: fee.amount }));
  return [`${schedule.percentage}%`, ...fixed].join(' + ');
}

function FeesReport(props: { report: FeesReportAnswer; networks: NetworkDirectory | undefined }) {
  const { report } = props;
  return (
    <>
      <p>
        Fee schedule: <strong>{scheduleText(report.schedule)}</strong>{' '}
        <span class="hint">per succeeded payment; the fees stay with the collector.</span>
      </p>
      {report.fees.length === 0 ? (
        <p class="empty">No fees charged yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="fees-report">
            <caption class="visually-hidden">Fees charged per token</caption>
            <thead>
              <tr>
                <th scope="col">Token</th>
                <th scope="col" class="amount">
                  Payments
                </th>
                <th scope="col" class="amount">
                  Fees charged
                </th>
                <th scope="col" class="amount">
                  Settled
                </th>
                <th scope="col" class="amount">
                  Unsettled
                </th>
              </tr>
            </thead>
            <tbody>
              {report.fees.map((line) => {
                const token = tokenOfBatch(line, props.networks);
                return (
                  <tr key={line.asset} data-asset={line.asset}>
                    <th scope="row" data-label="Token">
                      {/* One element, so a phone's card shows it as one value beside its label. */}
                      <span>
                        {token?.symbol ?? line.asset}
                        {props.networks && ` on ${props.networks.networkName(line.asset.split('/')[0] ?? '')}`}
                      </span>
                    </th>
                    <td data-label="Payments" class="amount">
                      {line.payments}
                    </td>
                    <td data-label="Fees charged" class="amount">
                      {formatTokenExact(line.total, token)}
                    </td>
                    <td data-label="Settled" class="amount">
                      {formatTokenExact(line.settled, token)}
                    </td>
                    <td data-label="Unsettled" class="amount">
                      {formatTokenExact(line.unsettled, token)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/**
 * The partner's settlements (`GET /v1/settlements`): the transfers of its merchants' payments, net of fees, to their
 * destinations, a page at a time by merchant and status; and the fees charged (`GET /v1/fees`) for the same merchant.
 */
export function SettlementsPage(props: { location: Location; networks: NetworkDirectory | undefined }) {
  usePageTitle('Settlements');
  const query = new URLSearchParams();
  for (const name of [...FILTERS, 'cursor', 'limit']) {
    const value = props.location.query.get(name);
    if (value) query.set(name, value);
  }
  const key = query.toString();
  const merchantId = query.get('merchantId') ?? undefined;
  const batches = useLiveData(
    key,
    (signal) => loadSettlementBatches(query, signal),
    () => undefined,
  );
  const fees = useLiveData(
    `fees ${merchantId ?? ''}`,
    (signal) => loadFeesReport(merchantId, signal),
    () => undefined,
  );
  const merchants = useLiveData('merchants', loadMerchants, () => undefined);

  // Another page or other filters replace the rows and the controls used: focus goes to the new rows.
  const focusRowsWhenShown = useRef(false);
  useEffect(() => {
    if (!focusRowsWhenShown.current || !batches.data) return;
    focusRowsWhenShown.current = false;
    document.getElementById('batch-rows')?.focus();
  }, [batches.data]);
  const show = (shown: URLSearchParams, state: unknown = null) => {
    focusRowsWhenShown.current = shown.toString() !== key;
    navigate(shown.size ? `${SETTLEMENTS_PATH}?${shown}` : SETTLEMENTS_PATH, { state });
  };
  const paging = cursorPaging(props.location, query, show);
  const filtersKey = FILTERS.map((name) => query.get(name) ?? '').join('\n');

  return (
    <>
      <PageHeading>Settlements</PageHeading>
      <p>
        Each batch is one transfer to a merchant's destination of its succeeded payments in one token, less their fees.
      </p>
      <SettlementFilters key={filtersKey} query={query} merchants={merchants.data} onApply={show} />
      <section aria-labelledby="batches-heading">
        <h2 id="batches-heading">Batches</h2>
        {batches.error && <ErrorNotice error={batches.error} />}
        {batches.loading && <p class="loading">Loading the settlements…</p>}
        {batches.data && (
          <>
            <BatchRows
              batches={batches.data.data}
              page={paging.pageNumber}
              merchants={merchants.data}
              networks={props.networks}
            />
            <Pager label="Pages of settlements" paging={paging} nextCursor={batches.data.nextCursor} />
          </>
        )}
      </section>
      <section aria-labelledby="fees-heading">
        <h2 id="fees-heading">Fees{merchantId ? ` of ${merchantName(merchantId, merchants.data)}` : ''}</h2>
        {fees.error && <ErrorNotice error={fees.error} />}
        {fees.loading && <p class="loading">Loading the fees…</p>}
        {fees.data && <FeesReport report={fees.data} networks={props.networks} />}
      </section>
    </>
  );
}
