import { FilterActions, PageSizeField } from '../ui/filterFields.tsx';
import type { MerchantView } from './apiTypes.ts';
import { MerchantFilterField } from './merchantFilterField.tsx';
import type { NetworkDirectory } from './networks.ts';
import { statusLabel } from './paymentFormat.ts';
import {
  dayOfEnd,
  dayOfStart,
  endOfDay,
  LIST_STATUSES,
  SOURCE_LABELS,
  startOfDay,
  withParameters,
} from './paymentsQuery.ts';

const ORDERS = [
  { value: 'date:desc', label: 'Newest first' },
  { value: 'date:asc', label: 'Oldest first' },
  { value: 'amount:desc', label: 'Largest amount first' },
  { value: 'amount:asc', label: 'Smallest amount first' },
];
const PAGE_SIZES = ['10', '25', '50', '100', '200'];
/** The API's default page size. */
const DEFAULT_PAGE_SIZE = '50';
/** What the API's `search` takes, as an HTML pattern (`v` flag: `/` and `-` escaped). */
const SEARCH_PATTERN = '[A-Za-z0-9 _\\/:.,+\\-]+';

/** The list query a submitted filter form asks for: the first page, in the chosen order. */
function queryOfForm(form: HTMLFormElement): URLSearchParams {
  const data = new FormData(form);
  const text = (name: string) => String(data.get(name) ?? '').trim() || undefined;
  const day = (name: string, toTime: (day: string) => string) => {
    const value = text(name);
    return value ? toTime(value) : undefined;
  };
  const [sortBy, sortDir] = (text('order') ?? 'date:desc').split(':');
  const networks = data.getAll('network').map(String);
  return withParameters(new URLSearchParams(), {
    search: text('search'),
    status: data.getAll('status').map(String),
    merchantId: text('merchantId'),
    startTs: day('from', startOfDay),
    endTs: day('to', endOfDay),
    token_symbol: data.getAll('token_symbol').map(String),
    network: networks.length ? networks.join(',') : undefined,
    source: text('source'),
    // The API's defaults stay out of the address.
    sortBy: sortBy === 'date' && sortDir === 'desc' ? undefined : sortBy,
    sortDir: sortBy === 'date' && sortDir === 'desc' ? undefined : sortDir,
    limit: text('limit') === DEFAULT_PAGE_SIZE ? undefined : text('limit'),
  });
}

function CheckboxGroup(props: {
  legend: string;
  name: string;
  options: { value: string; label: string }[];
  checked: string[];
  hint?: string;
}) {
  if (props.options.length === 0) return null;
  return (
    <fieldset class="choices" aria-describedby={props.hint ? `${props.name}-hint` : undefined}>
      <legend>{props.legend}</legend>
      {props.hint && (
        <p id={`${props.name}-hint`} class="hint">
          {props.hint}
        </p>
      )}
      {props.options.map((option) => (
        <label key={option.value} class="choice">
          <input
            type="checkbox"
            name={props.name}
            value={option.value}
            defaultChecked={props.checked.includes(option.value)}
          />{' '}
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}

/** How many filters narrow the list, for the collapsed form's summary. */
function activeFilters(query: URLSearchParams): number {
  return [
    'search',
    'referenceId',
    'status',
    'merchantId',
    'startTs',
    'endTs',
    'token_symbol',
    'network',
    'source',
  ].filter((name) => query.has(name)).length;
}

/**
 * Every filter of `GET /v1/payments`, read from and written to the page's address. Applying them shows the first
 * page; the form starts open on wide screens and folded on phones.
 */
export function PaymentFilters(props: {
  query: URLSearchParams;
  /** The merchants to choose from; without them (not loaded, not allowed, too many) a merchant id is typed. */
  merchants: MerchantView[] | undefined;
  networks: NetworkDirectory | undefined;
  /** Whether the API version the list answers under filters by `cancelled`. */
  offerCancelled: boolean;
  onApply: (query: URLSearchParams) => void;
}) {
  const { query } = props;
  const statuses = [...LIST_STATUSES, ...(props.offerCancelled ? ['cancelled'] : [])];
  const merchantId = query.get('merchantId') ?? '';
  const order = `${query.get('sortBy') ?? 'date'}:${query.get('sortDir') ?? 'desc'}`;
  const limit = query.get('limit') ?? DEFAULT_PAGE_SIZE;
  const active = activeFilters(query);
  const wide = window.matchMedia('(min-width: 48rem)').matches;

  const submit = (event: Event) => {
    event.preventDefault();
    // A list narrowed to a payment link from its section stays so: the form has no field for it.
    const link = query.get('paymentLinkId') ?? undefined;
    props.onApply(withParameters(queryOfForm(event.currentTarget as HTMLFormElement), { paymentLinkId: link }));
  };
  const clear = () => props.onApply(new URLSearchParams());

  return (
    <details class="filters" open={wide || undefined}>
      <summary>Filters{active ? ` (${active} applied)` : ''}</summary>
      <form onSubmit={submit} aria-label="Filters">
        <div class="fields">
          <div class="field">
            <label for="filter-search">Search</label>
            <input
              id="filter-search"
              name="search"
              type="search"
              minLength={3}
              maxLength={128}
              pattern={SEARCH_PATTERN}
              defaultValue={query.get('search') ?? query.get('referenceId') ?? ''}
              aria-describedby="filter-search-hint"
            />
            <p id="filter-search-hint" class="hint">
              A payment id, transaction hash, buyer account or address, or part of a reference
            </p>
          </div>
          <MerchantFilterField id="filter-merchant" merchants={props.merchants} selected={merchantId} />
          <div class="field">
            <label for="filter-from">From (UTC day)</label>
            <input id="filter-from" name="from" type="date" defaultValue={dayOfStart(query.get('startTs'))} />
          </div>
          <div class="field">
            <label for="filter-to">To (UTC day, included)</label>
            <input id="filter-to" name="to" type="date" defaultValue={dayOfEnd(query.get('endTs'))} />
          </div>
          <div class="field">
            <label for="filter-source">Source</label>
            <select id="filter-source" name="source">
              <option value="">Any source</option>
              {Object.entries(SOURCE_LABELS).map(([value, label]) => (
                <option key={value} value={value} selected={value === query.get('source')}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="filter-order">Order</label>
            <select id="filter-order" name="order">
              {ORDERS.map((option) => (
                <option key={option.value} value={option.value} selected={option.value === order}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
          <PageSizeField sizes={PAGE_SIZES} selected={limit} />
        </div>
        <CheckboxGroup
          legend="Status"
          name="status"
          options={statuses.map((status) => ({ value: status, label: statusLabel(status) }))}
          checked={query.getAll('status')}
          hint={
            props.offerCancelled
              ? 'Failed includes the cancelled payments, as the API lists them; the counts by status show each payment once.'
              : undefined
          }
        />
        {props.networks && (
          <>
            <CheckboxGroup
              legend="Token"
              name="token_symbol"
              options={props.networks.symbols.map((symbol) => ({ value: symbol, label: symbol }))}
              checked={query.getAll('token_symbol').map((symbol) => symbol.toUpperCase())}
            />
            <CheckboxGroup
              legend="Network"
              name="network"
              options={props.networks.networks.map((network) => ({ value: network.id, label: network.name }))}
              checked={(query.get('network') ?? '').split(',').map((network) => network.trim())}
            />
          </>
        )}
        <FilterActions onClear={clear} />
      </form>
    </details>
  );
}
