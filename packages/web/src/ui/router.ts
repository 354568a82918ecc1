import { useEffect, useRef, useState } from 'preact/hooks';

/** Where a console is: the page's path, its query, and what the history entry keeps beside them. */
export interface Location {
  path: string;
  query: URLSearchParams;
  /** The history entry's state (the cursors of the pages before this one, on the payment list). */
  state: unknown;
}

const listeners = new Set<() => void>();

function currentLocation(): Location {
  return {
    path: window.location.pathname,
    query: new URLSearchParams(window.location.search),
    state: window.history.state as unknown,
  };
}

/** Goes to a path of the console without loading the page again (History API). */
export function navigate(to: string, options: { replace?: boolean; state?: unknown } = {}): void {
  if (options.replace) window.history.replaceState(options.state ?? null, '', to);
  else window.history.pushState(options.state ?? null, '', to);
  for (const listener of listeners) listener();
}

/** The current location, kept up to date on `navigate` and on the browser's back and forward buttons. */
export function useLocation(): Location {
  const [location, setLocation] = useState(currentLocation);
  useEffect(() => {
    const update = () => setLocation(currentLocation());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return location;
}

/**
 * Links to the pages of a console (under `base`: `/dashboard`, `/operator`) are followed without reloading; its own
 * endpoints (`api`, `link`, `assets`), a link the person opens in a new tab or window (a modifier key, the middle
 * button, `target`), a download or another site's link behave as the browser's own.
 */
export function followLinksWithin(base: string): () => void {
  const notAPage = new RegExp(`^${base}/(api|link|assets)(/|$)`);
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    if (event.altKey || !(event.target instanceof Element)) return;
    const link = event.target.closest('a');
    if (!link || link.target || link.hasAttribute('download') || link.origin !== window.location.origin) return;
    // A link within the page (the skip link) moves within it.
    if (link.getAttribute('href')?.startsWith('#')) return;
    if (!link.pathname.startsWith(base) || notAPage.test(link.pathname)) return;
    event.preventDefault();
    navigate(`${link.pathname}${link.search}`);
  };
  document.addEventListener('click', onClick);
  return () => document.removeEventListener('click', onClick);
}

/**
 * Going to another page moves focus to its heading (`#page-heading`), as a page load would put a screen reader at
 * its start; `shown` is what else decides the page shown (the session), so focus follows once it is there.
 */
export function useHeadingFocusOnNavigation(path: string, shown: unknown): void {
  const shownPath = useRef(path);
  useEffect(() => {
    if (shownPath.current === path) return;
    shownPath.current = path;
    document.getElementById('page-heading')?.focus();
  }, [path, shown]);
}
