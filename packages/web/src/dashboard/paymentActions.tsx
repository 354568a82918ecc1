import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, change, idempotencyKey } from '../ui/api.ts';
import { failureMessage } from '../ui/common.tsx';
import { ConfirmAction, ConfirmQuestion } from '../ui/confirmAction.tsx';
import { formatFiat, minorUnitsOf } from '../ui/format.ts';
import { fiatCurrency, formatMinorUnits } from '@paygate/client/money';
import type { PaymentDetailAnswer, Session } from './apiTypes.ts';
import { aboveZero } from './paymentFormat.ts';

/** A step of the refund: offered, being filled in, asked to confirm. */
type Step = 'idle' | 'form' | 'confirm';

/** Moves focus to the element when `when` turns true, so a keyboard or a screen reader follows the step shown. */
function useFocusWhen<T extends HTMLElement>(when: boolean) {
  const element = useRef<T>(null);
  useEffect(() => {
    if (when) element.current?.focus();
  }, [when]);
  return element;
}

/** What the payment's refunds returned and are returning so far, for the refund form's hint; empty before any. */
function refundedSoFar(payment: PaymentDetailAnswer): string {
  const refunded = aboveZero(payment.refundedAmount);
  const pending = aboveZero(payment.pendingRefundAmount);
  const said = [
    ...(refunded ? [`refunded so far: ${formatFiat(refunded)}`] : []),
    ...(pending ? [`on its way back: ${formatFiat(pending)}`] : []),
  ];
  return said.length ? ` (${said.join('; ')})` : '';
}

/** Whether some of the payment is neither refunded nor on its way back: what a refund could still return. */
function leftToRefund(payment: PaymentDetailAnswer): boolean {
  if (!payment.fiatAmount) return false;
  const taken = BigInt(payment.refundedAmount?.value ?? '0') + BigInt(payment.pendingRefundAmount?.value ?? '0');
  return BigInt(payment.fiatAmount.value) > taken;
}

/** Why the API refused a refund, in words; what can still be refunded in the currency, not in minor units. */
function refundFailure(error: Error): string {
  const refundable = error instanceof ApiFailure ? error.details?.refundable : undefined;
  if (error instanceof ApiFailure && error.code === 'refund_exceeds_payment' && typeof refundable === 'object') {
    return `At most ${formatFiat(refundable as { unit: string; value: string })} can still be refunded.`;
  }
  return failureMessage(error);
}

/** What an action needs: the payment, the session, and what to do once it changed the payment (say so, reload). */
interface ActionProps {
  payment: PaymentDetailAnswer;
  session: Session;
  onChanged: (message: string) => void;
}

/** Cancelling a payment still waiting for the buyer, after a confirmation (`POST /v1/payments/{id}/cancel`). */
function CancelPayment(props: ActionProps) {
  const { payment } = props;
  return (
    <div class="action">
      <ConfirmAction
        askLabel="Cancel payment…"
        hint="The buyer has not paid yet; once cancelled, the payment cannot be paid."
        question={`Cancel payment ${payment.referenceId}? The buyer can no longer pay it, and this cannot be undone.`}
        confirmLabel="Yes, cancel the payment"
        busyLabel="Cancelling…"
        keepLabel="Keep the payment"
        failurePrefix="Not cancelled"
        onConfirm={async () => {
          await change('POST', `/v1/payments/${encodeURIComponent(payment.paymentId)}/cancel`, {
            csrfToken: props.session.csrfToken,
            headers: { 'merchant-id': payment.merchant.id },
          });
          props.onChanged('The payment is cancelled; the buyer can no longer pay it.');
        }}
      />
    </div>
  );
}

interface RefundChoice {
  /** Minor units of the payment currency; undefined refunds all that is not refunded yet. */
  amount: string | undefined;
  send: boolean;
  /** One key per confirmed refund, so a retry after a lost answer refunds once. */
  key: string;
}

/**
 * Refunding a succeeded payment, whole or in part (`POST /v1/refunds`): recorded (the money went back another way) or
 * sent back on chain to the paying account; the amount typed is turned into minor units exactly, then confirmed.
 */
function RefundPayment(props: ActionProps) {
  const { payment } = props;
  const fiat = payment.fiatAmount;
  const currency = fiatCurrency(fiat?.unit.replace(/^iso4217\//, '') ?? '');
  const [step, setStep] = useState<Step>('idle');
  const [choice, setChoice] = useState<RefundChoice | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const form = useFocusWhen<HTMLFormElement>(step === 'form');
  if (!fiat || !currency) return null;
  const sendable = payment.tokenAmount !== undefined && payment.buyer !== undefined;
  const amountText = (minor: string | undefined) =>
    minor === undefined ? 'everything not refunded yet' : formatFiat({ unit: fiat.unit, value: minor });

  const review = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const typed = String(data.get('amount') ?? '').trim();
    const amount = typed ? minorUnitsOf(typed, currency.decimals) : undefined;
    if (typed && (amount === undefined || BigInt(amount) === 0n)) {
      setProblem(`Write an amount above zero in ${currency.code}, like ${formatMinorUnits(1250n, currency.decimals)}.`);
      return;
    }
    setProblem(undefined);
    setChoice({ amount, send: data.get('how') === 'send', key: idempotencyKey() });
    setStep('confirm');
  };

  const refund = async (refunding: RefundChoice) => {
    await change('POST', '/v1/refunds', {
      csrfToken: props.session.csrfToken,
      headers: { 'merchant-id': payment.merchant.id, 'idempotency-key': refunding.key },
      body: {
        paymentId: payment.paymentId,
        ...(refunding.amount ? { amount: { unit: fiat.unit, value: refunding.amount } } : {}),
        send: refunding.send,
      },
    });
    setStep('idle');
    props.onChanged(
      refunding.send
        ? `Refund of ${amountText(refunding.amount)} asked for: it is sent back on chain, and shows below until it is final.`
        : `Refund of ${amountText(refunding.amount)} recorded.`,
    );
  };

  return (
    <div class="action">
      {step === 'idle' && (
        <>
          <button
            type="button"
            onClick={() => {
              setChoice(undefined);
              setStep('form');
            }}
          >
            Refund…
          </button>
          <p class="hint">Refund the buyer the whole payment or a part of it.</p>
        </>
      )}
      {step === 'form' && (
        <form class="refund-form" ref={form} tabIndex={-1} onSubmit={review} aria-label="Refund">
          <div class="field">
            <label for="refund-amount">Amount in {currency.code}</label>
            <input
              id="refund-amount"
              name="amount"
              type="text"
              inputMode="decimal"
              autocomplete="off"
              defaultValue={choice?.amount ? formatMinorUnits(BigInt(choice.amount), currency.decimals) : ''}
              aria-describedby={problem ? 'refund-amount-hint refund-amount-problem' : 'refund-amount-hint'}
              aria-invalid={problem ? true : undefined}
            />
            <p id="refund-amount-hint" class="hint">
              Leave empty to refund everything not refunded yet{refundedSoFar(payment)}.
            </p>
            {problem && (
              <p id="refund-amount-problem" class="error" role="alert">
                {problem}
              </p>
            )}
          </div>
          <fieldset class="choices">
            <legend>How</legend>
            <label class="choice">
              <input type="radio" name="how" value="record" defaultChecked={!choice?.send} /> Record it: the money went
              back another way
            </label>
            {sendable && (
              <label class="choice">
                <input type="radio" name="how" value="send" defaultChecked={choice?.send} /> Send the paid token back to
                the buyer's account
              </label>
            )}
          </fieldset>
          <div class="actions">
            <button type="submit" class="primary">
              Review the refund
            </button>
            <button type="button" onClick={() => setStep('idle')}>
              Close
            </button>
          </div>
        </form>
      )}
      {step === 'confirm' && choice && (
        <ConfirmQuestion
          question={`Refund ${amountText(choice.amount)} of payment ${payment.referenceId}${
            choice.send
              ? `, sent back on chain to ${payment.buyer?.accountCaip10 ?? 'the paying account'}?`
              : ', recorded as returned another way?'
          } This cannot be undone.`}
          confirmLabel="Yes, refund"
          busyLabel="Refunding…"
          keepLabel="Change the refund"
          failurePrefix="Not refunded"
          explainFailure={refundFailure}
          onConfirm={() => refund(choice)}
          onKeep={() => setStep('form')}
        />
      )}
    </div>
  );
}

/**
 * What can be done to a payment from its page: cancel it while unpaid, refund it once succeeded while some of it is
 * left to refund. What an action did stays said after it, even when the payment it changed no longer offers it (a
 * cancelled payment, one refunded in full).
 */
export function PaymentActions(props: { payment: PaymentDetailAnswer; session: Session; onChanged: () => void }) {
  const [done, setDone] = useState<string | undefined>();
  const { status } = props.payment;
  const action = {
    payment: props.payment,
    session: props.session,
    onChanged: (message: string) => {
      setDone(message);
      props.onChanged();
    },
  };
  const offered =
    status === 'requires_action' ? (
      <CancelPayment {...action} />
    ) : status === 'succeeded' && leftToRefund(props.payment) ? (
      <RefundPayment {...action} />
    ) : null;
  if (!offered && !done) return null;
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      {done && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
      {offered}
    </section>
  );
}
