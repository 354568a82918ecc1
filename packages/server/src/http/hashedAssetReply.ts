import type { FastifyReply } from 'fastify';
import type { WebAsset } from '@paygate/web/hashedAsset';

/** The compression a browser takes by its `Accept-Encoding`: brotli before gzip; none when it names neither. */
function acceptedEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
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

/** An asset under its content-hashed name: cached for good, compressed where the browser takes it. */
export function sendHashedAsset(
  asset: WebAsset,
  acceptEncoding: string | undefined,
  reply: FastifyReply,
): FastifyReply {
  reply.header('cache-control', 'public, max-age=31536000, immutable').type(asset.contentType);
  if (!asset.compressed) return reply.send(asset.body);
  reply.header('vary', 'accept-encoding');
  const encoding = acceptedEncoding(acceptEncoding);
  if (!encoding) return reply.send(asset.body);
  return reply.header('content-encoding', encoding).send(asset.compressed[encoding]);
}
