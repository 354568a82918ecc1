import type { FastifyReply } from 'fastify';
import type { StoredResponse } from './idempotency.ts';

/** Sends an already-serialised JSON response, byte for byte as it was first produced. */
export function sendStoredResponse(reply: FastifyReply, response: StoredResponse) {
  if (response.replayed) reply.header('idempotent-replayed', 'true');
  return reply.status(response.status).type('application/json; charset=utf-8').send(response.body);
}
