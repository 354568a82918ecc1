import { change, getJson } from '../ui/api.ts';
import type { Answer, Session } from './apiTypes.ts';

export type ApiKeyEntry = Answer<'/v1/api-keys'>['data'][number];
export type ApiVersionAnswer = Answer<'/v1/api-version'>;

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
