/** An answer of the service other than success: the API's error code and message, in words a person can read. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** From `Retry-After`, when the service says when to try again. */
    readonly retryAfterSeconds?: number,
    /** The error's `details`, when the API gives any (what can still be refunded, say). */
    readonly details?: Record<string, unknown>,
    /** What was wrong with each field of a refused request (`params_validation`). */
    readonly issues: { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

let sessionEnded: () => void = () => {};

/** What to do when the service answers that the session has ended or expired (another tab signed out, say). */
export function onSessionEnded(listener: () => void): void {
  sessionEnded = listener;
}

async function failureOf(response: Response): Promise<ApiFailure> {
  const body = (await response.json().catch(() => undefined)) as
    | { code?: unknown; message?: unknown; details?: unknown; issues?: unknown }
    | undefined;
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiFailure(
    response.status,
    typeof body?.code === 'string' ? body.code : 'unknown',
    typeof body?.message === 'string' ? body.message : `The service answered ${response.status}.`,
    Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    typeof body?.details === 'object' && body.details !== null ? (body.details as Record<string, unknown>) : undefined,
    Array.isArray(body?.issues) ? (body.issues as { field: string; message: string }[]) : [],
  );
}

/**
 * One request to the service from this origin: the session's cookie goes with it (it is the only credential the
 * console has), and a change carries the session's CSRF token.
 */
export async function send(
  path: string,
  init: { method?: string; body?: unknown; csrfToken?: string; headers?: Record<string, string>; signal?: AbortSignal },
): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.csrfToken) headers['x-csrf-token'] = init.csrfToken;
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers,
    credentials: 'same-origin',
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  if (response.ok) return response;
  const failure = await failureOf(response);
  if (failure.code === 'invalid_session') sessionEnded();
  throw failure;
}

/** A `GET` of the API, its JSON body and the version it answered under (`Pay-Version`). */
export async function getJson<T>(
  path: string,
  options: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<{ body: T; version: string | null }> {
  const response = await send(path, options);
  return { body: (await response.json()) as T, version: response.headers.get('pay-version') };
}

/** A file of the API (`GET`, the CSV export) and the name it gives it in `Content-Disposition`. */
export async function getFile(
  path: string,
  options: { headers?: Record<string, string> } = {},
): Promise<{ file: Blob; name: string | undefined }> {
  const response = await send(path, { headers: { accept: '*/*', ...options.headers } });
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  return { file: await response.blob(), name };
}

/** A change through the API (`POST`, `PUT`, `PATCH`, `DELETE`) with the session's CSRF token; its JSON answer, if any. */
export async function change<T>(
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  options: { csrfToken: string; body?: unknown; headers?: Record<string, string> },
): Promise<T | undefined> {
  const response = await send(path, { method, ...options });
  return response.status === 204 ? undefined : ((await response.json()) as T);
}

/**
 * A new `Idempotency-Key`: a change retried with the same key is made once. From `getRandomValues`, which, unlike
 * `randomUUID`, a service reached over plain http on a local network has too.
 */
export function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The browser's session of a console, or undefined when it has none (never signed in, signed out, expired). */
export async function readSessionAt<T>(path: string): Promise<T | undefined> {
  const response = await fetch(path, { credentials: 'same-origin' });
  if (response.status === 401) return undefined;
  if (!response.ok) throw await failureOf(response);
  return (await response.json()) as T;
}
