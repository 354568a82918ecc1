import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { consoleAssets } from './consoleAssets.ts';

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

/** A console asset by its content-hashed name, cached for good, compressed where the browser takes it. */
export async function sendConsoleAsset(
  file: string,
  acceptEncoding: string | undefined,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const asset = (await consoleAssets()).byName.get(file);
  if (!asset) throw ApiError.notFound('No such asset.');
  reply.header('cache-control', 'public, max-age=31536000, immutable').type(asset.contentType);
  if (!asset.compressed) return reply.send(asset.body);
  reply.header('vary', 'accept-encoding');
  const encoding = acceptedEncoding(acceptEncoding);
  if (!encoding) return reply.send(asset.body);
  return reply.header('content-encoding', encoding).send(asset.compressed[encoding]);
}

/**
 * The dashboard's script, stylesheet and icon under content-hashed names, so they are cached for good; compressed
 * where the browser takes it, so a phone loads the dashboard in a few kilobytes.
 */
export function registerServeDashboardAsset(app: App): void {
  app.get(
    '/dashboard/assets/:file',
    {
      config: { auth: false },
      schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 80 }) }) },
    },
    async (request, reply) => sendConsoleAsset(request.params.file, request.headers['accept-encoding'], reply),
  );
}
