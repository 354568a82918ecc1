import { useState } from 'preact/hooks';
import { CopyableId, ErrorNotice, Fact, failureMessage, PageHeading, usePageTitle } from '../ui/common.tsx';
import { ConfirmAction } from '../ui/confirmAction.tsx';
import { formatDateTime } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import type { MerchantDetail, Session } from './apiTypes.ts';
import { deleteMerchant, loadMerchant, type MerchantFields, updateMerchant } from './merchantsApi.ts';
import { MERCHANT_STATUS_LABELS, MerchantFieldInputs } from './merchantsPage.tsx';
import type { NetworkDirectory } from './networks.ts';
import { MERCHANTS_PATH, PAYMENTS_PATH } from './paths.ts';
import { isNotFound } from './paymentsApi.ts';
import { NewPayment } from './newPayment.tsx';
import { PaymentLinksSection } from './paymentLinksSection.tsx';
import { PointOfSaleSection } from './pointOfSaleSection.tsx';
import { SettlementDestinations } from './settlementDestinations.tsx';

/** What changed in the form, as `PATCH /v1/merchants/{id}` takes it; a logo URL typed is fetched again. */
function changedFields(merchant: MerchantDetail, data: FormData): MerchantFields {
  const name = String(data.get('merchantName') ?? '');
  const email = String(data.get('merchantEmail') ?? '').trim();
  const iconUrl = String(data.get('iconUrl') ?? '').trim();
  return {
    ...(name.trim() !== merchant.name ? { merchantName: name } : {}),
    ...(email !== merchant.email ? { merchantEmail: email } : {}),
    ...(iconUrl ? { iconUrl } : data.get('removeLogo') ? { iconUrl: null } : {}),
  };
}

function EditMerchant(props: { session: Session; merchant: MerchantDetail; onSaved: () => void }) {
  const { merchant } = props;
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ saved: boolean; text: string } | undefined>();
  const save = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = changedFields(merchant, new FormData(form));
    if (Object.keys(fields).length === 0) {
      setOutcome({ saved: false, text: 'Nothing to save: change a field first.' });
      return;
    }
    setBusy(true);
    setOutcome(undefined);
    try {
      await updateMerchant(props.session, merchant.id, fields);
      (form.elements.namedItem('iconUrl') as HTMLInputElement).value = '';
      setOutcome({ saved: true, text: 'Saved.' });
      props.onSaved();
    } catch (error) {
      setOutcome({ saved: false, text: `Not saved: ${failureMessage(error as Error)}` });
    }
    setBusy(false);
  };
  return (
    <form class="panel" onSubmit={save} aria-labelledby="edit-merchant-heading">
      <h2 id="edit-merchant-heading">Edit</h2>
      <MerchantFieldInputs
        merchant={merchant}
        logoHint="A public HTTPS address of a square image, 500 to 4096 pixels, to replace the logo; empty keeps it."
      />
      {merchant.iconUrl && (
        <label class="choice">
          <input type="checkbox" name="removeLogo" value="yes" /> Remove the logo
        </label>
      )}
      {outcome && (
        <p class={outcome.saved ? 'notice' : 'error'} role={outcome.saved ? 'status' : 'alert'}>
          {outcome.text}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

/** Deleting a merchant after a confirmation: it leaves the list and takes no new payments; its payments stay. */
function DeleteMerchant(props: { session: Session; merchant: MerchantDetail; onDeleted: () => void }) {
  return (
    <section aria-labelledby="delete-merchant-heading">
      <h2 id="delete-merchant-heading">Delete</h2>
      <ConfirmAction
        askLabel="Delete merchant…"
        question={`Delete ${props.merchant.name}? It leaves the list and takes no new payments; its payments and their history stay readable. This cannot be undone.`}
        confirmLabel="Yes, delete the merchant"
        busyLabel="Deleting…"
        keepLabel="Keep the merchant"
        failurePrefix="Not deleted"
        onConfirm={async () => {
          await deleteMerchant(props.session, props.merchant.id);
          props.onDeleted();
        }}
      />
    </section>
  );
}

/**
 * One merchant (`GET /v1/merchants/{id}`): what it is and its payments, its settlement destinations (added, changed,
 * removed), editing its name, email and logo, and deleting it.
 */
export function MerchantPage(props: { session: Session; merchantId: string; networks: NetworkDirectory | undefined }) {
  const live = useLiveData(
    props.merchantId,
    (signal) => loadMerchant(props.merchantId, signal),
    () => undefined,
  );
  const [deleted, setDeleted] = useState<string | undefined>();
  const notFound = !live.data && live.error !== undefined && isNotFound(live.error);
  const heading = deleted ?? (notFound ? 'Merchant not found' : (live.data?.name ?? 'Merchant'));
  usePageTitle(heading);
  const merchant = live.data;
  return (
    <>
      <p class="back">
        <a href={MERCHANTS_PATH}>All merchants</a>
      </p>
      <PageHeading>{heading}</PageHeading>
      {deleted ? (
        <p class="notice" role="status">
          {deleted} is deleted. Its payments stay in <a href={PAYMENTS_PATH}>the payments</a>.
        </p>
      ) : (
        <>
          {notFound && <p>No merchant of yours has the id {props.merchantId}.</p>}
          {live.error && !notFound && <ErrorNotice error={live.error} />}
          {live.loading && <p class="loading">Loading the merchant…</p>}
          {merchant && (
            <>
              <dl class="facts">
                <Fact term="Merchant id">
                  <CopyableId id={merchant.id} what="merchant id" />
                </Fact>
                <Fact term="Email">{merchant.email}</Fact>
                <Fact term="Status">
                  <span class={`status status-${merchant.status}`}>{MERCHANT_STATUS_LABELS[merchant.status]}</span>
                </Fact>
                <Fact term="Logo">
                  {merchant.iconUrl ? (
                    <img class="logo" src={merchant.iconUrl} alt={`Logo of ${merchant.name}`} width={64} height={64} />
                  ) : (
                    'None'
                  )}
                </Fact>
                <Fact term="Created">{formatDateTime(merchant.createdAt)}</Fact>
                <Fact term="Payments">
                  <a href={`${PAYMENTS_PATH}?${new URLSearchParams({ merchantId: merchant.id })}`}>
                    The payments of {merchant.name}
                  </a>
                </Fact>
              </dl>
              <NewPayment session={props.session} merchant={merchant} />
              <PaymentLinksSection session={props.session} merchant={merchant} />
              <PointOfSaleSection session={props.session} merchant={merchant} />
              <SettlementDestinations
                session={props.session}
                merchant={merchant}
                networks={props.networks}
                onChanged={live.reload}
              />
              <EditMerchant session={props.session} merchant={merchant} onSaved={live.reload} />
              <DeleteMerchant session={props.session} merchant={merchant} onDeleted={() => setDeleted(merchant.name)} />
            </>
          )}
        </>
      )}
    </>
  );
}
