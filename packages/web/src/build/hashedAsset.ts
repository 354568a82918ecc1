import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** A file the service serves under a content-hashed name, so browsers may keep it for good. */
export interface WebAsset {
  /** Content-hashed file name, e.g. `dashboard.3f2a9c1b0d4e5f67.js`; a new build gets a new name. */
  name: string;
  contentType: string;
  body: Buffer;
  /** The body compressed once at build, for browsers that accept it; an icon is sent as it is. */
  compressed: { br: Buffer; gzip: Buffer } | undefined;
}

export function hashedAsset(
  stem: string,
  extension: string,
  contentType: string,
  body: Buffer,
  compress: boolean,
): WebAsset {
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 16);
  const compressed = compress
    ? {
        br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }),
        gzip: gzipSync(body, { level: 9 }),
      }
    : undefined;
  return { name: `${stem}.${digest}.${extension}`, contentType, body, compressed };
}

/** The service's icon, shared by the checkout and the consoles. */
export const ICON_FILE = new URL('../ui/favicon.svg', import.meta.url);
