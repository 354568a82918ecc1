import { useEffect, useState } from 'preact/hooks';
import { formatFiat } from '../ui/format.ts';
import { type Charge, cancelCharge, chargesOfToday, type DayTotals } from './pointOfSaleApi.ts';

const STATUS_NAMES: Record<Charge['status'], string> = {
  requires_action: 'Waiting',
  processing: 'On its way',
  succeeded: 'Paid',
  failed: 'Failed',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

/** Today's charges of this device with what they took; one still open can be shown again, or cancelled. */
export function TodayScreen(props: { onBack: () => void; onOpen: (charge: Charge) => void }) {
  const [day, setDay] = useState<{ data: Charge[]; totals: DayTotals } | undefined>();
  const [problem, setProblem] = useState('');
  const load = () =>
    chargesOfToday().then(setDay, (error: unknown) =>
      setProblem(error instanceof Error ? error.message : String(error)),
    );
  useEffect(() => {
    void load();
  }, []);
  const cancel = async (paymentId: string) => {
    try {
      await cancelCharge(paymentId);
      await load();
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };
  const totals = day?.totals;
  return (
    <main class="today">
      <div class="today-head">
        <h1>Today’s payments</h1>
        <button type="button" class="secondary" onClick={props.onBack}>
          Back to the till
        </button>
      </div>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {!day && !problem && <p>Loading…</p>}
      {totals && (
        <dl class="totals">
          <div>
            <dt>Taken</dt>
            <dd>{formatFiat({ unit: totals.unit, value: totals.succeededAmount })}</dd>
          </div>
          <div>
            <dt>Of which tips</dt>
            <dd>{formatFiat({ unit: totals.unit, value: totals.succeededTips })}</dd>
          </div>
          <div>
            <dt>Paid</dt>
            <dd>{totals.succeededCount}</dd>
          </div>
          <div>
            <dt>Waiting</dt>
            <dd>{totals.openCount}</dd>
          </div>
        </dl>
      )}
      {day && day.data.length === 0 && <p>No payments yet today.</p>}
      {day && day.data.length > 0 && (
        <table class="charges">
          <caption class="visually-hidden">Today’s charges, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Amount</th>
              <th scope="col">Status</th>
              <th scope="col">Note</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {day.data.map((charge) => (
              <tr key={charge.paymentId} data-status={charge.status}>
                <td>{new Date(charge.createdAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}</td>
                <td>{formatFiat(charge.amount)}</td>
                <td>
                  <span class={`badge ${charge.status}`}>{STATUS_NAMES[charge.status]}</span>
                </td>
                <td>{charge.note ?? ''}</td>
                <td>
                  {!charge.isFinal && (
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Show the charge of ${formatFiat(charge.amount)}`}
                      onClick={() => props.onOpen(charge)}
                    >
                      Show
                    </button>
                  )}
                  {charge.status === 'requires_action' && (
                    <button
                      type="button"
                      class="secondary danger"
                      aria-label={`Cancel the charge of ${formatFiat(charge.amount)}`}
                      onClick={() => cancel(charge.paymentId)}
                    >
                      Cancel
                    </button>
                  )}
                  {charge.status === 'succeeded' && (
                    <a href={charge.receiptUrl} target="_blank" rel="noopener">
                      Receipt
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
