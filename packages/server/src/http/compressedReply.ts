import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply } from 'fastify';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** The compression a browser takes by its `Accept-Encoding`: brotli before gzip; none when it names neither. */
export function acceptedEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((entry) => entry.trim().split(';'))
      .filter(([, ...params]) => !params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param)))
      .map(([name]) => name?.trim().toLowerCase()),
  );
  if (accepted.has('br')) return 'br';
  return accepted.has('gzip') ? 'gzip' : undefined;
}

/**
 * A body made for this one request (a page), compressed where the browser takes it, off the event loop and at a
 * middle level: it is compressed anew each time, unlike a built asset.
 */
export async function sendCompressed(
  reply: FastifyReply,
  body: string,
  acceptEncoding: string | undefined,
): Promise<FastifyReply> {
  reply.header('vary', 'accept-encoding');
  const encoding = acceptedEncoding(acceptEncoding);
  if (!encoding) return reply.send(body);
  const compressed =
    encoding === 'br'
      ? await brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })
      : await gzipped(body, { level: 6 });
  return reply.header('content-encoding', encoding).send(compressed);
}
