import { useEffect, useMemo, useSyncExternalStore } from 'react';
import type { CheckoutSeams } from './seams.ts';
import { type CheckoutActions, createPaymentSession } from './session.ts';
import type { CheckoutSnapshot } from './snapshot.ts';

/**
 * A payment's checkout in a React component (or Preact through `preact/compat`): the snapshot to render and the
 * buyer's actions. The session starts on mount and stops on unmount (and starts again under StrictMode's second
 * mount); another payment id or seam makes a new session.
 */
export function usePaymentSession(
  paymentId: string,
  seams: CheckoutSeams,
): { snapshot: CheckoutSnapshot; actions: CheckoutActions } {
  const { transport, clock, telemetry } = seams;
  const session = useMemo(
    () => createPaymentSession(paymentId, { transport, clock, telemetry }),
    [paymentId, transport, clock, telemetry],
  );
  useEffect(() => {
    session.start();
    return () => session.stop();
  }, [session]);
  const snapshot = useSyncExternalStore(session.subscribe, session.getSnapshot, session.getSnapshot);
  return { snapshot, actions: session.actions };
}
