import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { Dispatcher } from 'undici';
import { isPublicAddress } from '../net/addressPolicy.ts';
import { discardBody, type GuardedRequestPolicy, guardedRequest } from '../net/guardedRequest.ts';
import type { HostRefusal, HostResolver } from '../net/pinnedConnection.ts';

export interface LogoFetchOptions {
  /** Production: false. Tests only: true, to reach a local test server. Lifts the address rule and nothing else. */
  allowPrivateHosts: boolean;
  /** PEM certificates trusted in addition to the system roots; tests use it for a self-signed server. */
  extraCaCertificates?: string[];
  /** DNS resolution; defaults to the system resolver returning every address of the name. */
  lookup?: HostResolver;
  /** Whole fetch budget in milliseconds (default 8000); connecting and waiting for headers get shorter budgets. */
  timeoutMs?: number;
  /** Largest accepted body in bytes (default 2 MB). */
  maxBytes?: number;
  /** Most redirects followed (default 3). */
  maxRedirects?: number;
  /**
   * Tests only: replaces the public-address rule so a test can admit exactly one loopback address and prove that
   * every other address is still refused. Ignored when allowPrivateHosts is true.
   */
  isAddressAllowed?: (address: string) => boolean;
}

export type LogoFormat = 'jpeg' | 'png' | 'webp' | 'avif';

export interface FetchedLogo {
  bytes: Buffer;
  /** Hex SHA-256 of bytes. */
  sha256: string;
  format: LogoFormat;
  contentType: string;
  extension: 'jpg' | 'png' | 'webp' | 'avif';
  width: number;
  height: number;
}

/** The logo was refused; the message names the rule broken and is meant for API users. */
export class LogoRejectedError extends Error {
  override readonly name = 'LogoRejectedError';
}

export const LOGO_MIN_SIDE_PX = 500;
export const LOGO_MAX_SIDE_PX = 4096;
/** Width and height may differ by at most this share of the longer side. */
export const LOGO_SQUARE_TOLERANCE = 0.05;

const DEFAULT_TIMEOUT_MS = 8000;
const CONNECT_TIMEOUT_MS = 3000;
const HEADERS_TIMEOUT_MS = 5000;
const BODY_IDLE_TIMEOUT_MS = 5000;
const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 3;

const FORMAT_DETAILS: Record<LogoFormat, { contentType: string; extension: FetchedLogo['extension'] }> = {
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  png: { contentType: 'image/png', extension: 'png' },
  webp: { contentType: 'image/webp', extension: 'webp' },
  avif: { contentType: 'image/avif', extension: 'avif' },
};

/** What a refused host is told, by the reason. */
const REFUSALS: Record<HostRefusal, string> = {
  private_literal: 'iconUrl points to a private address',
  unresolvable: 'iconUrl host name does not resolve',
  private_name: 'iconUrl resolves to a private address',
};

/**
 * Downloads the logo at `url` and checks it against the logo rules, throwing LogoRejectedError naming the rule broken.
 * Every hop is resolved once, every resolved address must be allowed, and the connection is pinned to those addresses.
 */
export async function fetchLogo(url: string, options: LogoFetchOptions): Promise<FetchedLogo> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const policy: GuardedRequestPolicy = {
    isAllowed: options.allowPrivateHosts ? () => true : (options.isAddressAllowed ?? isPublicAddress),
    lookup: options.lookup,
    extraCaCertificates: options.extraCaCertificates,
    timeoutMs,
    connectTimeoutMs: Math.min(CONNECT_TIMEOUT_MS, timeoutMs),
    headersTimeoutMs: Math.min(HEADERS_TIMEOUT_MS, timeoutMs),
    bodyTimeoutMs: Math.min(BODY_IDLE_TIMEOUT_MS, timeoutMs),
    timeoutError: () => new LogoRejectedError(`iconUrl did not answer within ${formatSeconds(timeoutMs)} s`),
    refuse: (reason) => new LogoRejectedError(REFUSALS[reason]),
    redirectTarget: (from, response, followed) => {
      if (followed >= maxRedirects) {
        const times = maxRedirects === 1 ? 'time' : 'times';
        throw new LogoRejectedError(`iconUrl redirected more than ${maxRedirects} ${times}`);
      }
      return redirectTarget(from, response.statusCode, response.headers.location);
    },
  };
  let bytes: Buffer;
  try {
    bytes = await guardedRequest(
      parseHttpsUrl(url, 'iconUrl must be a public HTTPS URL'),
      {
        method: 'GET',
        headers: {
          accept: 'image/avif,image/webp,image/png,image/jpeg',
          // undici does not decompress, and sharp must see the image bytes themselves.
          'accept-encoding': 'identity',
          'user-agent': 'paygate-logo-fetcher/1',
        },
      },
      policy,
      (response) => readLogoBody(response, maxBytes),
    );
  } catch (error) {
    throw describeTransferError(error, policy);
  }
  return await inspectImage(bytes);
}

async function readLogoBody(response: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer> {
  if (response.statusCode !== 200) {
    discardBody(response.body);
    throw new LogoRejectedError(`iconUrl answered HTTP ${response.statusCode}`);
  }
  const declaredLength = Number(firstHeader(response.headers['content-length']));
  if (Number.isFinite(declaredLength) && declaredLength > maxBytes) {
    discardBody(response.body);
    throw tooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.length;
    if (total > maxBytes) {
      discardBody(response.body);
      throw tooLargeError(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function parseHttpsUrl(raw: string, invalidMessage: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LogoRejectedError(invalidMessage);
  }
  if (url.protocol !== 'https:') throw new LogoRejectedError(invalidMessage);
  if (url.username !== '' || url.password !== '') {
    throw new LogoRejectedError('iconUrl must not contain a user name or password');
  }
  return url;
}

function redirectTarget(from: URL, status: number, location: string | string[] | undefined): URL {
  const target = firstHeader(location);
  if (target === undefined || target === '') {
    throw new LogoRejectedError(`iconUrl answered HTTP ${status} without a Location header`);
  }
  let resolved: string;
  try {
    resolved = new URL(target, from).href;
  } catch {
    throw new LogoRejectedError('iconUrl redirected to an invalid URL');
  }
  return parseHttpsUrl(resolved, 'iconUrl redirected to a URL that is not public HTTPS');
}

async function inspectImage(bytes: Buffer): Promise<FetchedLogo> {
  const notAnImage = new LogoRejectedError('iconUrl is not a JPEG, PNG, WebP or AVIF image');
  let metadata: sharp.Metadata;
  try {
    // Only the header is parsed; limitInputPixels refuses oversized canvases before anything is decoded.
    metadata = await sharp(bytes, { limitInputPixels: LOGO_MAX_SIDE_PX * LOGO_MAX_SIDE_PX }).metadata();
  } catch (error) {
    if (error instanceof Error && /pixel limit/i.test(error.message)) {
      throw new LogoRejectedError(
        `iconUrl image is larger than the maximum of ${LOGO_MAX_SIDE_PX}x${LOGO_MAX_SIDE_PX} px`,
      );
    }
    throw notAnImage;
  }

  const format = logoFormatOf(metadata);
  const { width, height } = metadata;
  if (format === undefined || width === undefined || height === undefined) throw notAnImage;

  if (width < LOGO_MIN_SIDE_PX || height < LOGO_MIN_SIDE_PX) {
    throw new LogoRejectedError(
      `iconUrl image is ${width}x${height} px; the minimum is ${LOGO_MIN_SIDE_PX}x${LOGO_MIN_SIDE_PX} px`,
    );
  }
  if (width > LOGO_MAX_SIDE_PX || height > LOGO_MAX_SIDE_PX) {
    throw new LogoRejectedError(
      `iconUrl image is ${width}x${height} px; the maximum is ${LOGO_MAX_SIDE_PX}x${LOGO_MAX_SIDE_PX} px`,
    );
  }
  if (!isSquareEnough(width, height)) {
    throw new LogoRejectedError(
      `iconUrl image must be square (width and height within 5%); it is ${width}x${height} px`,
    );
  }

  return {
    bytes,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    format,
    ...FORMAT_DETAILS[format],
    width,
    height,
  };
}

/** |width - height| <= 5% of the longer side. */
export function isSquareEnough(width: number, height: number): boolean {
  return Math.abs(width - height) <= LOGO_SQUARE_TOLERANCE * Math.max(width, height);
}

function logoFormatOf(metadata: sharp.Metadata): LogoFormat | undefined {
  switch (metadata.format) {
    case 'jpeg':
    case 'png':
    case 'webp':
      return metadata.format;
    // sharp reports AVIF as a HEIF container; only the AV1 flavour is AVIF (HEVC-coded HEIC is refused).
    case 'heif':
      return metadata.compression === 'av1' ? 'avif' : undefined;
    default:
      return undefined;
  }
}

function describeTransferError(error: unknown, policy: GuardedRequestPolicy): LogoRejectedError {
  if (error instanceof LogoRejectedError) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new LogoRejectedError(
        `iconUrl did not accept a connection within ${formatSeconds(policy.connectTimeoutMs)} s`,
      );
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new LogoRejectedError(`iconUrl did not answer within ${formatSeconds(policy.headersTimeoutMs)} s`);
    case 'UND_ERR_BODY_TIMEOUT':
      return new LogoRejectedError(`iconUrl stopped sending data for ${formatSeconds(policy.bodyTimeoutMs)} s`);
  }
  if (/CERT|SIGNATURE|ERR_TLS|ERR_SSL/.test(code)) {
    return new LogoRejectedError('iconUrl does not present a valid TLS certificate');
  }
  return new LogoRejectedError(`iconUrl could not be reached${code ? ` (${code})` : ''}`);
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function tooLargeError(maxBytes: number): LogoRejectedError {
  return new LogoRejectedError(`iconUrl image is larger than ${formatBytes(maxBytes)}`);
}

function formatBytes(bytes: number): string {
  const mebibyte = 1024 * 1024;
  if (bytes % mebibyte === 0) return `${bytes / mebibyte} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

function formatSeconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(1)));
}
