import type { ComponentChildren } from 'preact';
import type { Location } from './router.ts';

/** The cursors of the pages before this one, kept in the history entry, for Previous. */
interface PagingState {
  previousCursors: string[];
}

/**
 * Cursor paging of a list whose address holds its query: Next keeps the cursor of the page it leaves in the history
 * entry, so Previous (and the browser's Back) goes to the page before. `show` goes to a query with that state.
 */
export function cursorPaging(
  location: Location,
  query: URLSearchParams,
  show: (shown: URLSearchParams, state: PagingState) => void,
) {
  const previousCursors = (location.state as PagingState | null)?.previousCursors ?? [];
  const cursor = query.get('cursor');
  const withCursor = (value: string | undefined) => {
    const shown = new URLSearchParams(query);
    if (value) shown.set('cursor', value);
    else shown.delete('cursor');
    return shown;
  };
  return {
    cursor,
    // A page opened from a shared address with a cursor does not know how many pages came before it.
    pageNumber: cursor && previousCursors.length === 0 ? undefined : previousCursors.length + 1,
    next: (nextCursor: string) => show(withCursor(nextCursor), { previousCursors: [...previousCursors, cursor ?? ''] }),
    previous: () =>
      show(withCursor(previousCursors.at(-1) || undefined), { previousCursors: previousCursors.slice(0, -1) }),
  };
}

export function Pager(props: {
  /** What the pages are of, for the navigation's name: `Pages of merchants`. */
  label: string;
  paging: ReturnType<typeof cursorPaging>;
  nextCursor: string | null;
}) {
  const { paging, nextCursor } = props;
  return (
    <nav class="pager" aria-label={props.label}>
      <button type="button" disabled={!paging.cursor} onClick={paging.previous}>
        Previous
      </button>
      {paging.pageNumber && <span>Page {paging.pageNumber}</span>}
      <button type="button" disabled={!nextCursor} onClick={() => nextCursor && paging.next(nextCursor)}>
        Next
      </button>
    </nav>
  );
}

/**
 * A page of a list: its table, or what the list says when it has nothing, under the one id the page moves focus to
 * when another page of it is shown.
 */
export function PagedTable(props: {
  id: string;
  rows: number;
  empty: string;
  caption: string;
  tableClass?: string;
  children: ComponentChildren;
}) {
  if (props.rows === 0) {
    return (
      <p id={props.id} tabIndex={-1} class="empty">
        {props.empty}
      </p>
    );
  }
  return (
    <div id={props.id} tabIndex={-1} class="table-wrap">
      <table class={props.tableClass}>
        <caption class="visually-hidden">{props.caption}</caption>
        {props.children}
      </table>
    </div>
  );
}
