import { Type } from '@sinclair/typebox';

export interface Issue {
  field: string;
  message: string;
}

/** The one error type handlers throw; the error handler turns it into the interface's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly issues?: Issue[],
  ) {
    super(message);
  }

  static validation(issues: Issue[], message = 'The request is not valid.'): ApiError {
    return new ApiError(400, 'params_validation', message, undefined, issues);
  }

  static notFound(message: string, code = 'not_found'): ApiError {
    return new ApiError(404, code, message);
  }
}

export const ErrorBody = Type.Object(
  {
    message: Type.String(),
    code: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    issues: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'ErrorBody', description: 'Every non-2xx response has this body.' },
);
