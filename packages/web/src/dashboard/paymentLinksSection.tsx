import { fiatCurrency, formatMinorUnits, parseMinorUnits } from '@paygate/client/money';
import { useRef, useState } from 'preact/hooks';
import { change, getJson, idempotencyKey } from '../ui/api.ts';
import { CopyButton, ErrorNotice, failureMessage } from '../ui/common.tsx';
import { useLiveData } from '../ui/liveData.ts';
import type { Answer, MerchantDetail, Session } from './apiTypes.ts';
import { LinkQrCode } from './linkQrCode.tsx';
import { PAYMENTS_PATH } from './paths.ts';
import { SubmitRow } from './submitRow.tsx';

type PaymentLinkView = Answer<'/v1/payment-links'>['data'][number];

const STATUS_LABELS: Record<PaymentLinkView['status'], string> = {
  active: 'Active',
  inactive: 'Off',
  expired: 'Ended',
  spent: 'Used up',
};

/** The link's price as a person reads it: `12.50 USD`, `12.50 USD each (up to 5)`, `1.00 to 500.00 EUR`. */
export function priceText(link: Pick<PaymentLinkView, 'amount' | 'customAmount' | 'quantity'>): string {
  const unit = link.amount?.unit ?? link.customAmount?.unit ?? '';
  const code = unit.replace(/^iso4217\//, '');
  const decimals = fiatCurrency(code)?.decimals ?? 2;
  const money = (minor: string) => formatMinorUnits(BigInt(minor), decimals);
  if (link.amount) {
    const each = `${money(link.amount.value)} ${code}`;
    return link.quantity ? `${each} each (up to ${link.quantity.maximum})` : each;
  }
  const custom = link.customAmount!;
  return `${money(custom.minimum)} to ${money(custom.maximum)} ${code}, the buyer chooses`;
}

async function loadLinks(merchantId: string, signal: AbortSignal): Promise<PaymentLinkView[]> {
  const { body } = await getJson<Answer<'/v1/payment-links'>>(
    `/v1/payment-links?${new URLSearchParams({ merchantId, limit: '50' })}`,
    { signal },
  );
  return body.data;
}

/** Minor units of a typed amount, or why it is not one. */
function minorOf(typed: FormDataEntryValue | null, code: string, decimals: number): string | Error {
  const minor = parseMinorUnits(String(typed ?? '').trim(), decimals);
  if (!minor) {
    return new Error(
      `Enter amounts in ${code} as digits${decimals ? `, with at most ${decimals} after the point` : ''}, more than 0.`,
    );
  }
  return minor.toString();
}

/** The create request of the form's fields, or why they make none. */
function linkOfForm(data: FormData): Record<string, unknown> | Error {
  const code = String(data.get('currency') ?? '')
    .trim()
    .toUpperCase();
  const currency = fiatCurrency(code);
  if (!currency) return new Error(`${code || 'An empty code'} is not an ISO 4217 currency the service takes.`);
  const unit = `iso4217/${code}`;
  const body: Record<string, unknown> = { description: String(data.get('description') ?? '').trim() };
  if (data.get('pricing') === 'custom') {
    const minimum = minorOf(data.get('minimum'), code, currency.decimals);
    const maximum = minorOf(data.get('maximum'), code, currency.decimals);
    if (minimum instanceof Error) return minimum;
    if (maximum instanceof Error) return maximum;
    body.customAmount = { unit, minimum, maximum };
  } else {
    const value = minorOf(data.get('amount'), code, currency.decimals);
    if (value instanceof Error) return value;
    body.amount = { unit, value };
    const quantity = Number(data.get('maxQuantity') || 0);
    if (quantity > 1) body.quantity = { maximum: quantity };
  }
  const maxUses = Number(data.get('maxUses') || 0);
  if (maxUses > 0) body.maxUses = maxUses;
  const imageUrl = String(data.get('imageUrl') ?? '').trim();
  if (imageUrl) body.imageUrl = imageUrl;
  return body;
}

function NewPaymentLink(props: {
  session: Session;
  merchant: MerchantDetail;
  onCreated: (link: PaymentLinkView) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const [pricing, setPricing] = useState<'fixed' | 'custom'>('fixed');
  const sent = useRef<{ fields: string; key: string } | undefined>(undefined);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const body = linkOfForm(new FormData(form));
    if (body instanceof Error) {
      setFailure(body.message);
      return;
    }
    // The same fields sent again after a lost answer make one link.
    const fields = JSON.stringify(body);
    if (sent.current?.fields !== fields) sent.current = { fields, key: idempotencyKey() };
    setBusy(true);
    setFailure(undefined);
    try {
      const created = await change<PaymentLinkView>('POST', '/v1/payment-links', {
        csrfToken: props.session.csrfToken,
        headers: { 'idempotency-key': sent.current.key, 'merchant-id': props.merchant.id },
        body,
      });
      sent.current = undefined;
      form.reset();
      setPricing('fixed');
      props.onCreated(created!);
    } catch (error) {
      setFailure(failureMessage(error as Error));
    }
    setBusy(false);
  };
  return (
    <form onSubmit={submit} aria-label="New payment link">
      <div class="fields">
        <div class="field">
          <label for="link-description">What the buyer pays for</label>
          <input id="link-description" name="description" type="text" required maxLength={500} />
        </div>
        <fieldset class="field">
          <legend>Pricing</legend>
          <label>
            <input
              type="radio"
              name="pricing"
              value="fixed"
              checked={pricing === 'fixed'}
              onChange={() => setPricing('fixed')}
            />{' '}
            Fixed
          </label>
          <label>
            <input
              type="radio"
              name="pricing"
              value="custom"
              checked={pricing === 'custom'}
              onChange={() => setPricing('custom')}
            />{' '}
            The buyer chooses
          </label>
        </fieldset>
        {pricing === 'fixed' ? (
          <>
            <div class="field">
              <label for="link-amount">Price</label>
              <input id="link-amount" name="amount" type="text" inputMode="decimal" required maxLength={24} />
            </div>
            <div class="field">
              <label for="link-quantity">Most a buyer may take</label>
              <input
                id="link-quantity"
                name="maxQuantity"
                type="number"
                min={1}
                max={100}
                defaultValue="1"
                aria-describedby="link-quantity-hint"
              />
              <p id="link-quantity-hint" class="hint">
                1: no quantity to choose
              </p>
            </div>
          </>
        ) : (
          <>
            <div class="field">
              <label for="link-minimum">Lowest amount</label>
              <input id="link-minimum" name="minimum" type="text" inputMode="decimal" required maxLength={24} />
            </div>
            <div class="field">
              <label for="link-maximum">Highest amount</label>
              <input id="link-maximum" name="maximum" type="text" inputMode="decimal" required maxLength={24} />
            </div>
          </>
        )}
        <div class="field">
          <label for="link-currency">Currency</label>
          <input
            id="link-currency"
            name="currency"
            type="text"
            required
            maxLength={3}
            defaultValue="USD"
            aria-describedby="link-currency-hint"
          />
          <p id="link-currency-hint" class="hint">
            An ISO 4217 code, e.g. USD or EUR
          </p>
        </div>
        <div class="field">
          <label for="link-uses">Most payments</label>
          <input id="link-uses" name="maxUses" type="number" min={1} aria-describedby="link-uses-hint" />
          <p id="link-uses-hint" class="hint">
            Empty: no limit
          </p>
        </div>
        <div class="field">
          <label for="link-image">Image</label>
          <input id="link-image" name="imageUrl" type="url" aria-describedby="link-image-hint" />
          <p id="link-image-hint" class="hint">
            Optional: an https:// address the page shows
          </p>
        </div>
      </div>
      <SubmitRow busy={busy} failure={failure} failurePrefix="Not created" label="Create link" busyLabel="Creating…" />
    </form>
  );
}

function PaymentLinkRow(props: { session: Session; link: PaymentLinkView; onChanged: () => void }) {
  const { link } = props;
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const [showQr, setShowQr] = useState(false);
  const turn = async (active: boolean) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await change('PATCH', `/v1/payment-links/${encodeURIComponent(link.id)}`, {
        csrfToken: props.session.csrfToken,
        body: { active },
      });
      props.onChanged();
    } catch (error) {
      setFailure(failureMessage(error as Error));
    }
    setBusy(false);
  };
  const payments = `${PAYMENTS_PATH}?${new URLSearchParams({ merchantId: link.merchantId, paymentLinkId: link.id })}`;
  return (
    <li class="payment-link" data-link-id={link.id}>
      <p class="payment-link-title">
        <strong>{link.description}</strong>{' '}
        <span class={`status status-${link.status === 'active' ? 'active' : 'inactive'}`}>
          {STATUS_LABELS[link.status]}
        </span>
      </p>
      <p>
        {priceText(link)}
        {' · '}
        {link.maxUses
          ? `${link.uses} of ${link.maxUses} payments taken`
          : link.uses === 1
            ? '1 payment open or paid'
            : `${link.uses || 'No'} payments open or paid`}
      </p>
      <p>
        <a href={link.url}>{link.url}</a> <CopyButton text={link.url} what="payment link" />{' '}
        <button type="button" aria-expanded={showQr} onClick={() => setShowQr(!showQr)}>
          {showQr ? 'Hide QR code' : 'QR code'}
        </button>{' '}
        <a href={payments}>Payments and revenue</a>{' '}
        {link.active ? (
          <button type="button" disabled={busy} onClick={() => void turn(false)}>
            Turn off
          </button>
        ) : (
          <button type="button" disabled={busy} onClick={() => void turn(true)}>
            Turn on
          </button>
        )}
      </p>
      {showQr && <LinkQrCode link={link.url} label={`QR code of the payment link for ${link.description}`} />}
      {failure && (
        <p class="error" role="alert">
          Not changed: {failure}
        </p>
      )}
    </li>
  );
}

/**
 * The merchant's payment links: pages a buyer opens to pay a fixed price or an amount of their own, each visit a new
 * payment. Made, shared (address, QR code), turned off and on here.
 */
export function PaymentLinksSection(props: { session: Session; merchant: MerchantDetail }) {
  const links = useLiveData(
    `links-${props.merchant.id}`,
    (signal) => loadLinks(props.merchant.id, signal),
    () => undefined,
  );
  const [created, setCreated] = useState<PaymentLinkView | undefined>();
  return (
    <details class="panel payment-links">
      <summary>Payment links</summary>
      <NewPaymentLink
        session={props.session}
        merchant={props.merchant}
        onCreated={(link) => {
          setCreated(link);
          links.reload();
        }}
      />
      {created && (
        <p class="notice" role="status">
          Link created: <a href={created.url}>{created.url}</a> <CopyButton text={created.url} what="payment link" />
        </p>
      )}
      {links.error && <ErrorNotice error={links.error} />}
      {links.data &&
        (links.data.length ? (
          <ul class="payment-links-list" aria-label="Payment links">
            {links.data.map((link) => (
              <PaymentLinkRow key={link.id} session={props.session} link={link} onChanged={links.reload} />
            ))}
          </ul>
        ) : (
          <p class="hint">No payment links yet.</p>
        ))}
    </details>
  );
}
