import { Type } from '@sinclair/typebox';

export interface Issue {
  field: string;
  message: string;
}

interface ErrorSpec {
  /** The HTTP status the code is answered with. */
  status: number;
  /** Other statuses the interface pairs the code with. */
  alsoStatus?: readonly number[];
  /** The message when a throw site gives none. */
  message: string;
}

/** Every error code the API answers with, its HTTP status and default message (the interface's and D-decisions'). */
export const API_ERRORS = {
  invalid_params: { status: 400, alsoStatus: [408, 413, 414, 431], message: 'The request is not valid.' },
  params_validation: { status: 400, message: 'The request is not valid.' },
  header_not_ascii: { status: 400, message: 'A header value holds characters outside ASCII.' },
  invalid_state: { status: 400, message: 'The payment is not in a state that allows this.' },
  payment_not_succeeded: { status: 400, message: 'Only a succeeded payment can be refunded.' },
  refund_exceeds_payment: { status: 400, message: 'The refunds would add up to more than the payment.' },
  refund_not_sendable: { status: 400, message: 'The payment was not paid in a token this service can send back.' },
  invalid_api_version: { status: 400, message: 'The API version is not valid.' },
  unknown_api_version: { status: 400, message: 'The API version does not exist.' },
  api_version_downgrade: { status: 400, message: "The API version is older than the partner's pinned version." },
  conflicting_auth_headers: { status: 400, message: 'Send one of Api-Key, App-Id or Device-Key.' },
  missing_idempotency_key: { status: 400, message: 'Send a fresh unique Idempotency-Key header with this request.' },
  missing_api_key: { status: 401, message: 'Send your API key in the Api-Key header.' },
  invalid_api_key: { status: 401, message: 'The API key is not valid or has been revoked.' },
  missing_client_id: { status: 401, message: 'App-Id requires a Client-Id header.' },
  invalid_app_id: { status: 401, message: 'The App-Id is not known.' },
  missing_merchant_id: { status: 401, message: 'Send the merchant id in the Merchant-Id header.' },
  missing_device_key: { status: 401, message: "Send the point-of-sale device's key in the Device-Key header." },
  invalid_device_key: { status: 401, message: 'The device key is not valid, or the device was revoked.' },
  invalid_session: { status: 401, message: 'The dashboard session has ended or expired; sign in again.' },
  forbidden: { status: 403, message: 'The credentials lack permission for this.' },
  invalid_csrf_token: {
    status: 403,
    message: "A dashboard session's change needs the session's CSRF token in the X-CSRF-Token header.",
  },
  merchant_not_active: { status: 403, message: 'The merchant of this payment is not taking payments.' },
  account_blocked: {
    status: 403,
    message:
      "The account is blocked by the operator's address screening; this service takes no payment from it and sends none to it.",
  },
  not_found: { status: 404, message: 'Not found.' },
  payment_not_found: { status: 404, message: 'Payment not found.' },
  merchant_not_found: { status: 404, message: 'Merchant not found.' },
  method_not_allowed: {
    status: 405,
    message: 'This path does not take that method; the Allow header lists those it takes.',
  },
  quote_expired: { status: 409, message: 'The quote expired; ask for options again.' },
  idempotency_conflict: { status: 409, message: 'The Idempotency-Key was used with another request.' },
  already_refunded: { status: 409, message: 'The payment is refunded in full.' },
  insufficient_balance: {
    status: 409,
    message: "The merchant's balance in the collector does not cover the refund; details name the shortfall.",
  },
  insufficient_token_balance: {
    status: 409,
    message: 'The paying account holds less of the token than the payment asks; details give its balance.',
  },
  transaction_would_fail: {
    status: 409,
    message: 'The transaction would fail on chain; details give the reason its simulation found.',
  },
  settlement_asset_conflict: { status: 409, message: 'The asset already has a settlement destination.' },
  payment_link_changed: {
    status: 409,
    message: 'The payment link was changed by other requests meanwhile; try again.',
  },
  webhook_endpoint_limit: { status: 409, message: 'The partner has as many webhook endpoints as allowed.' },
  payment_expired: { status: 410, message: 'The payment expired.' },
  rate_limited: { status: 429, message: 'Too many requests; retry after the time in Retry-After.' },
  transaction_request_limit: {
    status: 429,
    message:
      'As many signed transactions as allowed can still land for this payment or account; retry after Retry-After.',
  },
  internal_error: { status: 500, message: 'Something went wrong on our side; it has been logged.' },
  bad_gateway: { status: 502, message: 'An upstream service failed.' },
  service_unavailable: { status: 503, message: 'The service cannot do this right now.' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof API_ERRORS;

/** The codes answered with `status`, for the OpenAPI document. */
export function errorCodesOf(status: number): ErrorCode[] {
  return (Object.entries(API_ERRORS) as [ErrorCode, ErrorSpec][])
    .filter(([, spec]) => spec.status === status || spec.alsoStatus?.includes(status))
    .map(([code]) => code);
}

/** The one error type handlers throw; the error handler turns it into the interface's error body. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  readonly issues: Issue[] | undefined;
  /** Sent as `Retry-After`: when the client may try again. */
  readonly retryAfterSeconds: number | undefined;

  /** `answer.status` only where the catalogue pairs the code with another status than its own. */
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: Record<string, unknown>,
    answer: { issues?: Issue[]; status?: number; retryAfterSeconds?: number } = {},
  ) {
    const spec: ErrorSpec = API_ERRORS[code];
    super(message ?? spec.message);
    const { issues, status, retryAfterSeconds } = answer;
    this.retryAfterSeconds = retryAfterSeconds ?? (spec.status === 429 ? 1 : undefined);
    if (status !== undefined && status !== spec.status && !spec.alsoStatus?.includes(status)) {
      throw new Error(`the error code ${code} is not answered with status ${status}`);
    }
    this.status = status ?? spec.status;
    this.issues = issues;
  }

  static validation(issues: Issue[], message?: string): ApiError {
    return new ApiError('params_validation', message, undefined, { issues });
  }

  static notFound(
    message: string,
    code: 'not_found' | 'payment_not_found' | 'merchant_not_found' = 'not_found',
  ): ApiError {
    return new ApiError(code, message);
  }
}

export const ErrorBody = Type.Object(
  {
    message: Type.String(),
    code: Type.String({ enum: Object.keys(API_ERRORS) }),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    issues: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'ErrorBody', description: 'Every non-2xx response has this body.' },
);
