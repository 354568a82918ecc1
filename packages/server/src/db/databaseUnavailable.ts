/**
 * SQLSTATEs that say PostgreSQL cannot serve right now rather than that a statement was wrong: class 08 (connection
 * exception), administrator or crash shutdown, starting up, too many connections.
 */
const UNAVAILABLE_STATE = /^(?:08...|57P0[1-3]|53300)$/;
/** How connecting to a server that is down, or losing the connection to it, shows in Node. */
const LOST_CONNECTION = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE']);
const SOCKET_CALLS = new Set(['connect', 'read', 'write']);
/** node-postgres's own words for a connection that broke or could not be had in time. */
const POOL_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /Client has encountered a connection error and is not queryable/,
  /Client was closed and is not queryable/,
];

/** Whether `error` means the database could not be reached (a retry later may work), not that the request failed. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, syscall, message } = error as { code?: unknown; syscall?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_STATE.test(code)) return true;
  if (typeof code === 'string' && LOST_CONNECTION.has(code) && typeof syscall === 'string')
    return SOCKET_CALLS.has(syscall);
  return typeof message === 'string' && POOL_MESSAGES.some((pattern) => pattern.test(message));
}
