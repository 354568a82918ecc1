import type { ListStats } from './apiTypes.ts';
import { PAYMENTS_PATH } from './paths.ts';
import { formatStatsTotal, statusLabel } from './paymentFormat.ts';
import type { PaymentListView } from './paymentsApi.ts';
import { withParameters } from './paymentsQuery.ts';

const count = new Intl.NumberFormat();

function Totals(props: { totals: ListStats['totalRevenue'] }) {
  if (props.totals.length === 0) return <>None</>;
  return (
    <>
      {props.totals.map((total) => (
        <span key={total.currency} class="total">
          {formatStatsTotal(total)}
        </span>
      ))}
    </>
  );
}

/**
 * The statistics of every payment matching `query` (not just a page), and the counts by status, each the API's own;
 * a count links to the payment list of that status under the same filters.
 */
export function PaymentStats(props: { view: PaymentListView; query: URLSearchParams }) {
  const { stats } = props.view.list;
  const filteredBy = new Set(props.query.getAll('status'));
  return (
    <section class="stats" aria-labelledby="stats-heading">
      <h2 id="stats-heading" class="visually-hidden">
        Summary of the matching payments
      </h2>
      <dl class="figures">
        <div>
          <dt>Payments</dt>
          <dd>{count.format(stats.totalTransactions)}</dd>
        </div>
        <div>
          <dt>Customers</dt>
          <dd>{count.format(stats.totalCustomers)}</dd>
        </div>
        <div>
          <dt>Revenue</dt>
          <dd>
            <Totals totals={stats.totalRevenue} />
          </dd>
        </div>
        <div>
          <dt>Refunded</dt>
          <dd>
            <Totals totals={stats.totalRefunded} />
          </dd>
        </div>
      </dl>
      <h3 class="status-counts-heading">By status</h3>
      <ul class="status-counts">
        {props.view.statusCounts.map(({ status, count: payments }) => (
          <li key={status}>
            <a
              href={`${PAYMENTS_PATH}?${withParameters(props.query, { status, cursor: undefined })}`}
              aria-current={filteredBy.size === 1 && filteredBy.has(status) ? 'true' : undefined}
            >
              {statusLabel(status)} <strong>{count.format(payments)}</strong>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
