import { ErrorNotice, PageHeading, usePageTitle } from '../ui/common.tsx';
import { formatFiat } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { type Location, navigate } from '../ui/router.ts';
import type { NetworkDirectory } from './networks.ts';
import { loadOverview } from './overviewApi.ts';
import { daysOf, type OverviewRange, RANGE_PRESETS, rangeOf, rangeQuery, utcToday } from './overviewRange.ts';
import { OVERVIEW_PATH } from './paths.ts';
import { PaymentStats } from './paymentStats.tsx';
import { listVersionOf } from './paymentsApi.ts';
import { RevenueChart, seriesColour } from './revenueChart.tsx';
import { type CurrencyRevenue, revenueByCurrency, SPLITS, type Split, splitOf } from './revenueSeries.ts';
import type { DashboardSettings } from './settings.ts';

/** How often an open overview asks the API again. */
const OVERVIEW_REFRESH_MS = 30_000;

const count = new Intl.NumberFormat();
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

function dayText(day: string): string {
  return dayFormat.format(new Date(`${day}T00:00:00.000Z`));
}

/** The overview's address for a range and split; the defaults stay out of it. */
function overviewPath(range: Pick<OverviewRange, 'kind' | 'from' | 'to'>, split: Split): string {
  const query = new URLSearchParams(
    range.kind === 'custom' ? { range: 'custom', from: range.from, to: range.to } : { range: range.kind },
  );
  if (split !== 'none') query.set('split', split);
  return `${OVERVIEW_PATH}?${query}`;
}

/** The presets as links (each range has its address), and a custom range's first and last day. */
function RangePicker(props: { range: OverviewRange; split: Split }) {
  const { range, split } = props;
  const apply = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    navigate(overviewPath({ kind: 'custom', from: String(data.get('from')), to: String(data.get('to')) }, split));
  };
  return (
    <div class="range">
      <nav aria-label="Date range">
        <ul class="segments">
          {RANGE_PRESETS.map((preset) => (
            <li key={preset.id}>
              <a
                href={overviewPath({ kind: preset.id, from: '', to: '' }, split)}
                aria-current={range.kind === preset.id ? 'true' : undefined}
              >
                {preset.label}
              </a>
            </li>
          ))}
          <li>
            <a
              href={overviewPath({ kind: 'custom', from: range.from, to: range.to }, split)}
              aria-current={range.kind === 'custom' ? 'true' : undefined}
            >
              Custom
            </a>
          </li>
        </ul>
      </nav>
      {range.kind === 'custom' && (
        <form class="custom-range" onSubmit={apply} aria-label="Custom range" key={`${range.from}:${range.to}`}>
          <div class="field">
            <label for="range-from">From (UTC day)</label>
            <input id="range-from" name="from" type="date" required defaultValue={range.from} />
          </div>
          <div class="field">
            <label for="range-to">To (UTC day, included)</label>
            <input id="range-to" name="to" type="date" required defaultValue={range.to} />
          </div>
          <button type="submit" class="primary">
            Show
          </button>
        </form>
      )}
      {range.problem ? (
        <p class="error" role="alert">
          {range.problem}
        </p>
      ) : (
        <p class="hint range-days">
          {range.from === range.to ? dayText(range.from) : `${dayText(range.from)} to ${dayText(range.to)}`} (UTC)
        </p>
      )}
    </div>
  );
}

/** Splitting the chart's bars: radio buttons, the choice kept in the address. */
function SplitChoice(props: { range: OverviewRange; split: Split }) {
  return (
    <fieldset class="choices split">
      <legend>Show revenue</legend>
      {SPLITS.map((split) => (
        <label key={split.id} class="choice">
          <input
            type="radio"
            name="split"
            value={split.id}
            checked={props.split === split.id}
            onChange={() => navigate(overviewPath(props.range, split.id), { replace: true })}
          />{' '}
          {split.label}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * One currency's revenue: the chart, its legend with each series' exact total, a summary in words, and the days as
 * a table (the chart's text alternative).
 */
function CurrencyRevenueView(props: { revenue: CurrencyRevenue; days: string[]; split: Split }) {
  const { revenue, days } = props;
  const split = props.split !== 'none';
  const money = (minor: bigint) => formatFiat({ unit: `iso4217/${revenue.currency}`, value: minor.toString() });
  const headingId = `revenue-${revenue.currency}`;
  const best = revenue.perDay.reduce((top, value, index) => (value > revenue.perDay[top]! ? index : top), 0);
  const paidDays = days.flatMap((day, index) => (revenue.perDay[index]! > 0n ? [{ day, index }] : []));
  return (
    <section class="currency-revenue" aria-labelledby={headingId} data-currency={revenue.currency}>
      <h3 id={headingId}>{revenue.currency}</h3>
      <ul class="legend">
        {revenue.series.map((one, index) => (
          <li key={one.label}>
            <span class="swatch" style={{ background: seriesColour(index) }} aria-hidden="true" />
            <span class="series-label">{one.label}</span>{' '}
            <data class="series-total" value={one.total.toString()}>
              {money(one.total)}
            </data>{' '}
            <span class="hint">
              ({count.format(one.payments)} payment{one.payments === 1 ? '' : 's'})
            </span>
          </li>
        ))}
      </ul>
      <figure class="chart-figure">
        <RevenueChart revenue={revenue} days={days} />
        <figcaption class="hint">
          {money(revenue.total)} from {count.format(revenue.payments)} succeeded payment
          {revenue.payments === 1 ? '' : 's'} over {days.length} day{days.length === 1 ? '' : 's'}; the highest day,{' '}
          {dayText(days[best]!)}, took {money(revenue.perDay[best]!)}.
        </figcaption>
      </figure>
      <details class="revenue-table">
        <summary>Revenue per day as a table</summary>
        <p class="hint">Days without succeeded payments are left out.</p>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Revenue in {revenue.currency} per day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {split &&
                  revenue.series.map((one) => (
                    <th key={one.label} scope="col" class="amount">
                      {one.label}
                    </th>
                  ))}
                <th scope="col" class="amount">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {paidDays.map(({ day, index }) => (
                <tr key={day}>
                  <th scope="row" data-label="Day">
                    {dayText(day)}
                  </th>
                  {split &&
                    revenue.series.map((one) => (
                      <td key={one.label} class="amount" data-label={one.label}>
                        <data value={one.perDay[index]!.toString()}>{money(one.perDay[index]!)}</data>
                      </td>
                    ))}
                  <td class="amount" data-label="Total">
                    <data value={revenue.perDay[index]!.toString()}>{money(revenue.perDay[index]!)}</data>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}

/** The range's figures and revenue, loaded from the API and refreshed while the page is open. */
function OverviewFigures(props: {
  range: OverviewRange;
  split: Split;
  networks: NetworkDirectory | undefined;
  listVersion: string | undefined;
}) {
  const { range, split } = props;
  const query = rangeQuery(range);
  const live = useLiveData(
    query.toString(),
    (signal) => loadOverview(query, props.listVersion, signal),
    () => OVERVIEW_REFRESH_MS,
  );
  const days = daysOf(range);
  const currencies =
    live.data &&
    revenueByCurrency(live.data.revenue, days, split, (caip2) => props.networks?.networkName(caip2) ?? caip2);
  return (
    <>
      {live.error && (
        <ErrorNotice error={live.error} prefix={live.data ? 'Could not refresh the overview:' : undefined} />
      )}
      {live.loading && <p class="loading">Loading the overview…</p>}
      {live.data && currencies && (
        <>
          <PaymentStats view={live.data.totals} query={query} />
          <section class="revenue" aria-labelledby="revenue-heading">
            <h2 id="revenue-heading">Revenue per day</h2>
            <SplitChoice range={range} split={split} />
            {currencies.length === 0 ? (
              <p class="empty">No succeeded payments in these days.</p>
            ) : (
              currencies.map((revenue) => (
                <CurrencyRevenueView key={revenue.currency} revenue={revenue} days={days} split={split} />
              ))
            )}
          </section>
        </>
      )}
    </>
  );
}

/**
 * The overview: the figures of a range of days (the API's statistics for it, the counts by status) and the revenue
 * per day, by currency, split by token or network.
 */
export function OverviewPage(props: {
  location: Location;
  networks: NetworkDirectory | undefined;
  settings: DashboardSettings;
}) {
  usePageTitle('Overview');
  const range = rangeOf(props.location.query, utcToday());
  const split = splitOf(props.location.query);
  return (
    <>
      <PageHeading>Overview</PageHeading>
      <RangePicker range={range} split={split} />
      {!range.problem && (
        <OverviewFigures
          range={range}
          split={split}
          networks={props.networks}
          listVersion={listVersionOf(props.settings)}
        />
      )}
    </>
  );
}
