import type { Principal, Scope } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { EVENT_TYPES, type RecordedEventType, TEST_EVENT_TYPE } from './events.ts';

/**
 * The scope whose routes read each event's object: an event carries that object, so only credentials holding the
 * scope may read it, however it reaches them (a stream, an endpoint they subscribe, a redelivery, an attempt log).
 */
const SCOPE_OF_EVENT: Record<RecordedEventType, Scope> = {
  'payment.created': 'payments',
  'payment.processing': 'payments',
  'payment.succeeded': 'payments',
  'payment.failed': 'payments',
  'payment.expired': 'payments',
  'payment.cancelled': 'payments',
  'payment.settled': 'payments',
  'payment.underpaid': 'payments',
  'payment.overpaid': 'payments',
  'payment.paid_late': 'payments',
  'payment.wrong_token': 'payments',
  'payment.transfer_refused': 'payments',
  'merchant.updated': 'merchants',
  'refund.created': 'payments',
  'refund.succeeded': 'payments',
  'refund.failed': 'payments',
  [TEST_EVENT_TYPE]: 'merchants',
};

function scopesOf(principal: Principal): readonly Scope[] {
  return 'scopes' in principal ? principal.scopes : [];
}

/** Every type of event the credentials may read, the test event included. */
export function readableEventTypes(principal: Principal): RecordedEventType[] {
  const scopes = scopesOf(principal);
  const recorded: RecordedEventType[] = [...EVENT_TYPES, TEST_EVENT_TYPE];
  return recorded.filter((type) => scopes.includes(SCOPE_OF_EVENT[type]));
}

/** Refuses (403 `forbidden`) when the credentials may not read events of one of `types`, naming the scope. */
export function requireEventTypesReadable(principal: Principal, types: readonly RecordedEventType[]): void {
  const scopes = scopesOf(principal);
  const unreadable = types.filter((type) => !scopes.includes(SCOPE_OF_EVENT[type]));
  if (unreadable.length) {
    const lacking = [...new Set(unreadable.map((type) => SCOPE_OF_EVENT[type]))];
    throw new ApiError(
      'forbidden',
      `Events ${unreadable.join(', ')} need the scopes ${lacking.join(', ')}, which the credentials lack.`,
    );
  }
}
