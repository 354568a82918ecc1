import { createElement, StrictMode, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { browserTransport, type CheckoutActions, type CheckoutSnapshot, eip1193Wallet } from '../../src/index.ts';
import { usePaymentSession } from '../../src/react.ts';

/** What the test reads and drives: the latest snapshot rendered, the actions, the wallet injected by the test. */
interface HookPageWindow {
  paymentId: string;
  ethereum: Parameters<typeof eip1193Wallet>[0];
  rendered: CheckoutSnapshot[];
  actions: CheckoutActions;
  connect(): Promise<void>;
  wallet: boolean;
}

const page = window as unknown as HookPageWindow;

function Checkout({ paymentId }: { paymentId: string }) {
  const transport = useMemo(() => browserTransport({ endpoint: '/api/checkout' }), []);
  const { snapshot, actions } = usePaymentSession(paymentId, { transport });
  page.rendered.push(snapshot);
  page.actions = actions;
  return createElement('p', { id: 'stage' }, snapshot.stage);
}

page.rendered = [];
page.connect = () => page.actions.connectWallet(eip1193Wallet(page.ethereum, { name: 'Devnet' }));
// StrictMode mounts, unmounts and mounts again: the session must stop and start again, not run twice or stop.
createRoot(document.getElementById('root') as HTMLElement).render(
  createElement(StrictMode, null, createElement(Checkout, { paymentId: page.paymentId })),
);
page.wallet = true;
