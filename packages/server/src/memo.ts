/** A map of promises: a Map or a WeakMap. */
interface PromiseMap<K, V> {
  get(key: K): Promise<V> | undefined;
  set(key: K, value: Promise<V>): unknown;
  delete(key: K): unknown;
}

/** The promise `map` holds for `key`, else `load()`'s, kept there until it fails so that a later call tries again. */
export function memoised<K, V>(map: PromiseMap<K, V>, key: K, load: () => Promise<V>): Promise<V> {
  const held = map.get(key);
  if (held) return held;
  const loading = load();
  loading.catch(() => {
    if (map.get(key) === loading) map.delete(key);
  });
  map.set(key, loading);
  return loading;
}

/**
 * A reader of a value that changes over time (a block height, fees), asked of `load` at most once per `maxAgeMs` and
 * shared by every caller meanwhile; a failed read is not kept.
 */
export function sharedFor<V>(maxAgeMs: number, load: () => Promise<V>): () => Promise<V> {
  let held: { at: number; value: Promise<V> } | undefined;
  return () => {
    if (held && Date.now() - held.at < maxAgeMs) return held.value;
    const value = load();
    const entry = { at: Date.now(), value };
    value.catch(() => {
      if (held === entry) held = undefined;
    });
    held = entry;
    return value;
  };
}
