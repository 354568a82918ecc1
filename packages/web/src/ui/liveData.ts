import { useEffect, useState } from 'preact/hooks';

export interface LiveData<T> {
  data: T | undefined;
  /** Why the latest load failed; the data of the load before stays shown. */
  error: Error | undefined;
  loading: boolean;
  /** When the data shown was loaded. */
  loadedAt: Date | undefined;
  /** Loads afresh now (after a change the page made), keeping the data shown until the new data comes. */
  reload: () => void;
}

/** A refresh that failed (the network, a restart) is tried again this much later at the soonest. */
const RETRY_AFTER_FAILURE_MS = 5_000;

interface Loaded<T> {
  key: string;
  data?: T;
  error?: Error;
  loadedAt?: Date;
}

/**
 * Data loaded by `load`, loaded afresh whenever `key` (what the load depends on) changes and, while
 * `refreshAfterMs(data)` gives a delay, again after it, so what the page shows follows the service. A refresh keeps
 * the data it replaces on screen, waits while the tab is hidden, and is dropped when the page leaves.
 */
export function useLiveData<T>(
  key: string,
  load: (signal: AbortSignal, previous: T | undefined) => Promise<T>,
  refreshAfterMs: (data: T) => number | undefined,
): LiveData<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ key });
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    const leaving = new AbortController();
    let previous: T | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let dueWhileHidden = false;

    const schedule = (delayMs: number | undefined) => {
      if (delayMs === undefined) return;
      timer = setTimeout(() => {
        if (document.hidden) dueWhileHidden = true;
        else void run();
      }, delayMs);
    };
    const run = async () => {
      try {
        const data = await load(leaving.signal, previous);
        if (leaving.signal.aborted) return;
        previous = data;
        setLoaded({ key, data, loadedAt: new Date() });
        schedule(refreshAfterMs(data));
      } catch (error) {
        if (leaving.signal.aborted) return;
        setLoaded((before) => ({ ...(before.key === key ? before : { key }), error: error as Error }));
        // A refresh that failed is tried again; a first load that failed is shown as it failed.
        const delayMs = previous === undefined ? undefined : refreshAfterMs(previous);
        if (delayMs !== undefined) schedule(Math.max(delayMs, RETRY_AFTER_FAILURE_MS));
      }
    };
    const onVisibilityChange = () => {
      if (document.hidden || !dueWhileHidden) return;
      dueWhileHidden = false;
      void run();
    };
    document.addEventListener('visibilitychange', onVisibilityChange);
    void run();
    return () => {
      leaving.abort();
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibilityChange);
    };
    // `key` names everything the load depends on; `reloads` counts the loads asked for by the page.
  }, [key, reloads]);
  const current = loaded.key === key ? loaded : undefined;
  return {
    data: current?.data,
    error: current?.error,
    loading: current === undefined || (current.data === undefined && current.error === undefined),
    loadedAt: current?.loadedAt,
    reload: () => setReloads((count) => count + 1),
  };
}
