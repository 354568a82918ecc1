import QRCode from 'qrcode';
import { useEffect, useRef, useState } from 'preact/hooks';
import { change, idempotencyKey } from '../ui/api.ts';
import { CopyButton, failureMessage } from '../ui/common.tsx';
import { fiatCurrency, parseMinorUnits } from '@paygate/client/money';
import type { MerchantDetail, Session } from './apiTypes.ts';
import { paymentPath } from './paths.ts';
import { SubmitRow } from './submitRow.tsx';

/** Currencies offered first; any other ISO 4217 code can be typed. */
const COMMON_CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'BRL'];
/** How long a buyer has to pay, in seconds, as the API takes it (60 s to 24 h). */
const EXPIRIES: { label: string; seconds: number }[] = [
  { label: '15 minutes', seconds: 15 * 60 },
  { label: '1 hour', seconds: 60 * 60 },
  { label: '24 hours', seconds: 24 * 60 * 60 },
];

interface CreatedPayment {
  paymentId: string;
  gatewayUrl: string;
}

/** A link as a QR code for a phone's camera, drawn in the page. */
export function LinkQrCode(props: { link: string; label: string }) {
  const [svg, setSvg] = useState<string | undefined>();
  useEffect(() => {
    let current = true;
    void QRCode.toString(props.link, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }).then((drawn) => {
      if (current) setSvg(drawn);
    });
    return () => {
      current = false;
    };
  }, [props.link]);
  if (!svg) return null;
  return (
    <figure class="qr" role="img" aria-label={props.label}>
      {/* The library's own SVG markup for text it was given: no input of the page's reaches it. */}
      <div dangerouslySetInnerHTML={{ __html: svg }} />
    </figure>
  );
}

/**
 * A one-off payment of the merchant, made from the dashboard (`POST /v1/payments`): its link to send a buyer or show
 * as a QR code. The request's `Idempotency-Key` is kept while the fields stay the same, so sending again after a
 * lost answer makes one payment.
 */
export function NewPayment(props: { session: Session; merchant: MerchantDetail }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const [created, setCreated] = useState<CreatedPayment | undefined>();
  const sent = useRef<{ fields: string; key: string } | undefined>(undefined);
  const submit = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const code = String(data.get('currency') ?? '')
      .trim()
      .toUpperCase();
    const currency = fiatCurrency(code);
    if (!currency) {
      setFailure(`${code || 'An empty code'} is not an ISO 4217 currency the service takes.`);
      return;
    }
    const minor = parseMinorUnits(String(data.get('amount') ?? '').trim(), currency.decimals);
    if (!minor) {
      setFailure(
        `Enter the amount in ${code} as digits${currency.decimals ? `, with at most ${currency.decimals} after the point` : ''}, more than 0.`,
      );
      return;
    }
    const body = {
      amount: { unit: `iso4217/${code}`, value: minor.toString() },
      referenceId: String(data.get('referenceId') ?? '').trim(),
      expiresAt: Math.floor(Date.now() / 1000) + Number(data.get('expiry')),
    };
    const fields = JSON.stringify({ ...body, expiresAt: data.get('expiry') });
    if (sent.current?.fields !== fields) sent.current = { fields, key: idempotencyKey() };
    setBusy(true);
    setFailure(undefined);
    try {
      const answer = await change<CreatedPayment>('POST', '/v1/payments', {
        csrfToken: props.session.csrfToken,
        headers: { 'idempotency-key': sent.current.key, 'merchant-id': props.merchant.id },
        body,
      });
      sent.current = undefined;
      setCreated(answer!);
    } catch (error) {
      setFailure(failureMessage(error as Error));
    }
    setBusy(false);
  };
  return (
    <details class="panel new-payment">
      <summary>New payment</summary>
      <form onSubmit={submit} aria-label="New payment">
        <div class="fields">
          <div class="field">
            <label for="payment-amount">Amount</label>
            <input id="payment-amount" name="amount" type="text" inputMode="decimal" required maxLength={24} />
          </div>
          <div class="field">
            <label for="payment-currency">Currency</label>
            <input
              id="payment-currency"
              name="currency"
              type="text"
              required
              list="payment-currencies"
              maxLength={3}
              defaultValue="USD"
              aria-describedby="payment-currency-hint"
            />
            <datalist id="payment-currencies">
              {COMMON_CURRENCIES.map((each) => (
                <option key={each} value={each} />
              ))}
            </datalist>
            <p id="payment-currency-hint" class="hint">
              An ISO 4217 code, e.g. USD or EUR
            </p>
          </div>
          <div class="field">
            <label for="payment-reference">Reference</label>
            <input
              id="payment-reference"
              name="referenceId"
              type="text"
              required
              maxLength={255}
              pattern="[\x20-\x7E]+"
              aria-describedby="payment-reference-hint"
            />
            <p id="payment-reference-hint" class="hint">
              Your own id for it, e.g. an order or invoice number; one payment per reference
            </p>
          </div>
          <div class="field">
            <label for="payment-expiry">Time to pay</label>
            <select id="payment-expiry" name="expiry" defaultValue={String(EXPIRIES[0]!.seconds)}>
              {EXPIRIES.map((each) => (
                <option key={each.seconds} value={String(each.seconds)}>
                  {each.label}
                </option>
              ))}
            </select>
          </div>
        </div>
        <SubmitRow
          busy={busy}
          failure={failure}
          failurePrefix="Not created"
          label="Create payment"
          busyLabel="Creating…"
        />
      </form>
      {created && (
        <div class="created-payment" role="status">
          <p>
            Payment created. Send the buyer its link, or let them scan it:{' '}
            <a href={created.gatewayUrl} data-payment-link>
              {created.gatewayUrl}
            </a>{' '}
            <CopyButton text={created.gatewayUrl} what="payment link" />
          </p>
          <LinkQrCode link={created.gatewayUrl} label="QR code of the payment link" />
          <p>
            <a href={paymentPath(created.paymentId, props.merchant.id)}>Follow the payment</a>
          </p>
        </div>
      )}
    </details>
  );
}
