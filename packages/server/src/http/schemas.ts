import { type TSchema, Type } from '@sinclair/typebox';
import { ErrorBody, errorCodesOf } from './errors.ts';

/** `T` or null, as one JSON Schema type list (clearer validation errors than anyOf). */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Unsafe<T['static'] | null>({ ...schema, type: [schema.type as string, 'null'] });
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request, invalid or downgraded API version',
  401: 'Missing or invalid credentials',
  403: 'The credentials lack permission',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Body too large',
  429: 'Rate limited',
  500: 'Internal error',
  502: 'An upstream service failed',
  503: 'The service cannot do this right now',
};

/** Error responses of a route: the common error body, its `code` one of the codes answered with that status. */
export function errorResponses(...statuses: number[]) {
  const all = [...new Set([400, 401, 403, 429, 500, ...statuses])];
  const { $id: _shared, ...body } = ErrorBody;
  return Object.fromEntries(
    all.map((status) => [
      status,
      {
        ...body,
        properties: { ...body.properties, code: Type.String({ enum: errorCodesOf(status) }) },
        description: ERROR_DESCRIPTIONS[status],
      },
    ]),
  );
}

/** The header of routes that require an Idempotency-Key (D5); a request without one gets `missing_idempotency_key`. */
export const IdempotencyKeyHeader = Type.Object({
  'idempotency-key': Type.String({
    maxLength: 255,
    description: 'A fresh unique value per operation; a replay returns the original result.',
  }),
});
