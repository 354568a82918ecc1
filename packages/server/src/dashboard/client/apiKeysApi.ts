import type { Static } from '@sinclair/typebox';
import type { ApiKeyView } from '../../partners/apiKeyResource.ts';
import type { ApiVersionView } from '../../partners/apiVersionResource.ts';
import { change, getJson } from './api.ts';
import type { Session } from './apiTypes.ts';

// The API's answers as its own schemas describe them (types only: nothing of the server is bundled).
export type ApiKeyEntry = Static<typeof ApiKeyView>;
export type ApiVersionAnswer = Static<typeof ApiVersionView>;

/** Every key of the partner, newest first, revoked ones included (`GET /v1/api-keys`). */
export async function loadApiKeys(signal: AbortSignal): Promise<ApiKeyEntry[]> {
  return (await getJson<{ data: ApiKeyEntry[] }>('/v1/api-keys', { signal })).body.data;
}

/** A new key with the scopes given, which the API shows this once. */
export async function createApiKey(session: Session, scopes: string[]): Promise<ApiKeyEntry & { apiKey: string }> {
  return (await change<ApiKeyEntry & { apiKey: string }>('POST', '/v1/api-keys', {
    csrfToken: session.csrfToken,
    body: { scopes },
  }))!;
}

export async function revokeApiKey(session: Session, keyId: string): Promise<void> {
  await change('DELETE', `/v1/api-keys/${encodeURIComponent(keyId)}`, { csrfToken: session.csrfToken });
}

export async function loadApiVersion(signal: AbortSignal): Promise<ApiVersionAnswer> {
  return (await getJson<ApiVersionAnswer>('/v1/api-version', { signal })).body;
}

export async function pinApiVersion(session: Session, version: string): Promise<ApiVersionAnswer> {
  return (await change<ApiVersionAnswer>('PUT', '/v1/api-version', {
    csrfToken: session.csrfToken,
    body: { version },
  }))!;
}
