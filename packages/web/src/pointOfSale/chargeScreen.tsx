import { useEffect, useState } from 'preact/hooks';
import { formatFiat } from '../ui/format.ts';
import { announceOutcome, canWriteNfc, writeNfcLink } from './feedback.ts';
import { cancelCharge, type Charge, type Device, followCharge, PosFailure } from './pointOfSaleApi.ts';
import { QrImage } from './qrImage.tsx';

const NOT_PAID: Record<string, string> = {
  expired: 'The payment expired before it was paid.',
  cancelled: 'The charge was cancelled.',
  failed: 'The payment failed.',
};

/** Follows the charge with the service's long-poll until it is final; a lost connection is tried again shortly. */
function useFollowedCharge(first: Charge): Charge {
  const [charge, setCharge] = useState(first);
  useEffect(() => {
    const abort = new AbortController();
    let current = first;
    void (async () => {
      while (!current.isFinal && !abort.signal.aborted) {
        try {
          const next = await followCharge(current.paymentId, current.status, abort.signal);
          current = next;
          setCharge(next);
          if (next.isFinal) announceOutcome(next.status === 'succeeded');
        } catch (error) {
          if (abort.signal.aborted) return;
          if (error instanceof PosFailure && error.status < 500 && error.status !== 429) return;
          await new Promise((resolve) => setTimeout(resolve, 2000));
        }
      }
    })();
    return () => abort.abort();
  }, [first.paymentId]);
  return charge;
}

function ReceiptForPrint(props: { charge: Charge; device: Device }) {
  const { charge, device } = props;
  return (
    <section class="printed-receipt" aria-hidden="true">
      <h2>{device.merchant.name}</h2>
      <p>Paid · {new Date(charge.createdAt).toLocaleString()}</p>
      <dl>
        <dt>Amount</dt>
        <dd>{formatFiat(charge.baseAmount)}</dd>
        {charge.tip.value !== '0' && (
          <>
            <dt>Tip</dt>
            <dd>{formatFiat(charge.tip)}</dd>
          </>
        )}
        <dt>Total paid</dt>
        <dd>{formatFiat(charge.amount)}</dd>
        {charge.note && (
          <>
            <dt>Note</dt>
            <dd>{charge.note}</dd>
          </>
        )}
        <dt>Payment</dt>
        <dd>{charge.paymentId}</dd>
        {charge.transaction && (
          <>
            <dt>Transaction</dt>
            <dd class="hash">{charge.transaction.hash}</dd>
          </>
        )}
      </dl>
      <p>Receipt: {charge.receiptUrl}</p>
    </section>
  );
}

function NfcButton(props: { url: string }) {
  const [state, setState] = useState<'idle' | 'waiting' | 'written' | 'failed'>('idle');
  if (!canWriteNfc()) return null;
  const write = async () => {
    setState('waiting');
    try {
      await writeNfcLink(props.url);
      setState('written');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" class="secondary" onClick={write} disabled={state === 'waiting'}>
        {state === 'waiting' ? 'Hold a tag to the device…' : 'Write to NFC tag'}
      </button>
      <p class="hint" aria-live="polite">
        {state === 'written' ? 'Written: the buyer can tap the tag.' : state === 'failed' ? 'No tag was written.' : ''}
      </p>
    </>
  );
}

/** The charge's screen: its QR code large while it waits, then paid or not paid beyond doubt, with the receipts. */
export function ChargeScreen(props: { first: Charge; device: Device; onDone: () => void }) {
  const charge = useFollowedCharge(props.first);
  const [problem, setProblem] = useState('');
  const total = formatFiat(charge.amount);
  const cancel = async () => {
    try {
      await cancelCharge(charge.paymentId);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };

  if (charge.status === 'succeeded') {
    return (
      <main class="outcome paid" data-state="succeeded">
        <div class="outcome-mark" aria-hidden="true">
          ✓
        </div>
        <h1>Paid {total}</h1>
        {charge.tip.value !== '0' && <p class="detail">Including a tip of {formatFiat(charge.tip)}</p>}
        <section class="receipt" aria-labelledby="receipt-heading">
          <h2 id="receipt-heading">Receipt</h2>
          <QrImage className="receipt-qr" text={charge.receiptUrl} label="QR code of the receipt page" />
          <p>
            <a href={charge.receiptUrl} target="_blank" rel="noopener">
              Open the receipt page
            </a>
          </p>
          <button type="button" class="secondary" onClick={() => window.print()}>
            Print receipt
          </button>
        </section>
        <button type="button" class="primary" onClick={props.onDone}>
          New sale
        </button>
        <ReceiptForPrint charge={charge} device={props.device} />
      </main>
    );
  }
  if (charge.isFinal) {
    return (
      <main class="outcome not-paid" data-state={charge.status}>
        <div class="outcome-mark" aria-hidden="true">
          ✕
        </div>
        <h1>Not paid</h1>
        <p class="detail">
          {NOT_PAID[charge.status] ?? 'The payment failed.'} {total} was not taken.
        </p>
        <button type="button" class="primary" onClick={props.onDone}>
          New sale
        </button>
      </main>
    );
  }
  return (
    <main class="charge" data-state={charge.status}>
      <div class="charge-code">
        <QrImage className="payment-qr" text={charge.paymentUrl} label={`QR code to pay ${total}`} />
      </div>
      <div class="charge-side">
        <h1>{total}</h1>
        {charge.note && <p class="detail">{charge.note}</p>}
        <p class="status" role="status">
          {charge.status === 'processing' ? 'Payment on its way…' : 'Scan with any wallet to pay'}
        </p>
        {charge.status === 'requires_action' && (
          <>
            <NfcButton url={charge.paymentUrl} />
            <button type="button" class="secondary danger" onClick={cancel}>
              Cancel charge
            </button>
          </>
        )}
        {problem && (
          <p class="problem" role="alert">
            {problem}
          </p>
        )}
      </div>
    </main>
  );
}
