/**
 * A value now, or later when it had to be loaded. Hot read paths answered from memory return the value itself:
 * each promise a request waits on costs a turn of the microtask queue.
 */
export type Eventually<T> = T | Promise<T>;

export function andThen<T, U>(value: Eventually<T>, next: (value: T) => U): Eventually<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
