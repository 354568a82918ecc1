import { ApiError } from './errors.ts';

/** A behaviour that a version turns on; code asks `versionHas(version, change)` instead of comparing dates. */
export type VersionChange =
  | 'asset-query-parameter-removed'
  | 'payment-checkout-redirects'
  | 'payment-list-cancelled-status';

interface ApiVersion {
  version: string;
  changes: VersionChange[];
  description: string;
}

/** Every known API version, oldest first. The only place a version may change behaviour. */
export const API_VERSIONS: readonly ApiVersion[] = [
  { version: '2026-02-18', changes: [], description: 'The reference version.' },
  {
    version: '2026-02-19.preview',
    changes: ['asset-query-parameter-removed', 'payment-checkout-redirects', 'payment-list-cancelled-status'],
    description:
      'Preview: the deprecated `asset` query parameter of the payment list is refused (use `token_symbol`); ' +
      '`POST /v1/payments` takes `checkout {successUrl, errorUrl}` (HTTPS); the payment lists filter by `status=cancelled`.',
  },
];

export const REFERENCE_VERSION = '2026-02-18';
export const DEFAULT_PARTNER_VERSION = REFERENCE_VERSION;

const VERSION_FORMAT = /^(\d{4})-(\d{2})-(\d{2})(\.preview)?$/;

function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function isWellFormedVersion(value: string): boolean {
  const match = VERSION_FORMAT.exec(value);
  return match !== null && isRealDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

export function isKnownVersion(value: string): boolean {
  return API_VERSIONS.some((entry) => entry.version === value);
}

/** Orders versions by date; a preview sorts after the plain version of the same date. */
export function compareVersions(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function versionHas(version: string, change: VersionChange): boolean {
  return API_VERSIONS.find((entry) => entry.version === version)?.changes.includes(change) ?? false;
}

/**
 * Names the version a response was made under, in `Pay-Version` (D3) and in `WCP-Version`, the name WalletConnect
 * Pay's own documents give it: a client written from either finds it.
 */
export function nameVersion(reply: { header(name: string, value: string): unknown }, version: string): void {
  reply.header('pay-version', version);
  reply.header('wcp-version', version);
}

/** A version header's value; an empty one (`Pay-Version:` with nothing after it) counts as not sent. */
function headerValue(value: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(value) ? value.join(',') : value;
  return joined?.trim() ? joined : undefined;
}

/** The version a request asked for (`Pay-Version`, or its alias `WCP-Version`), checked for form only. */
export function requestedVersion(headers: Record<string, string | string[] | undefined>): string | undefined {
  const pay = headerValue(headers['pay-version']);
  const wcp = headerValue(headers['wcp-version']);
  if (pay !== undefined && wcp !== undefined && pay !== wcp) {
    throw new ApiError('invalid_api_version', 'Pay-Version and WCP-Version disagree; send one of them.');
  }
  const requested = pay ?? wcp;
  if (requested === undefined) return undefined;
  if (!isWellFormedVersion(requested)) {
    throw new ApiError(
      'invalid_api_version',
      `"${requested.slice(0, 64)}" is not an API version; use YYYY-MM-DD or YYYY-MM-DD.preview.`,
    );
  }
  if (!isKnownVersion(requested)) {
    throw new ApiError('unknown_api_version', `API version ${requested} does not exist.`, {
      knownVersions: API_VERSIONS.map((entry) => entry.version),
    });
  }
  return requested;
}

/** The version a response names before (or without) authentication: the requested one when valid, else the reference. */
export function echoedVersion(headers: Record<string, string | string[] | undefined>): string {
  try {
    return requestedVersion(headers) ?? REFERENCE_VERSION;
  } catch {
    return REFERENCE_VERSION;
  }
}

/** The version a partner's request runs under: the requested one, never older than the partner's pin. */
export function resolveVersion(requested: string | undefined, pinned: string): string {
  if (requested === undefined) return pinned;
  if (compareVersions(requested, pinned) < 0) {
    throw new ApiError(
      'api_version_downgrade',
      `API version ${requested} is older than this account's pinned version ${pinned}.`,
      { pinnedVersion: pinned },
    );
  }
  return requested;
}
