import { useState } from 'preact/hooks';
import { ErrorNotice, failureMessage, PageHeading, usePageTitle } from '../ui/common.tsx';
import { formatDateTime, minorUnitsOf } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import { fiatCurrency, formatMinorUnits } from '@paygate/client/money';
import { dataThresholdText } from './dataThreshold.ts';
import { feesText } from './fees.ts';
import {
  type FeeSchedule,
  listPartners,
  type OperatorSession,
  type PartnerSummary,
  pinPartnerVersion,
  setPartnerDataThreshold,
  setPartnerFees,
} from './operatorApi.ts';
import { CONSOLE_NAME, MERCHANTS_PATH, PARTNERS_PATH } from './paths.ts';

/** A fixed fee as typed: a currency code and an amount in that currency. */
interface FixedFeeRow {
  id: number;
  currency: string;
  amount: string;
}

/** What a saved change says, or why it failed. */
type Outcome = { saved: string } | { failure: string } | undefined;

function OutcomeNotice(props: { outcome: Outcome }) {
  const { outcome } = props;
  if (!outcome) return null;
  if ('saved' in outcome) {
    return (
      <p class="notice" role="status">
        {outcome.saved}
      </p>
    );
  }
  return (
    <p class="error" role="alert">
      {outcome.failure}
    </p>
  );
}

/** The typed fees as the API takes them (fixed fees in minor units, exactly), or what is wrong with them. */
function feeScheduleOf(percentage: string, rows: FixedFeeRow[]): FeeSchedule | { problem: string } {
  const fixed: FeeSchedule['fixed'] = [];
  for (const row of rows) {
    const code = row.currency.trim().toUpperCase();
    const currency = fiatCurrency(code);
    if (!currency) return { problem: `${code || 'An empty code'} is not a currency code (USD, EUR, JPY…).` };
    const amount = minorUnitsOf(row.amount, currency.decimals);
    if (amount === undefined) {
      return {
        problem: `Write the ${code} fee as an amount in ${code}, like ${formatMinorUnits(30n, currency.decimals)}.`,
      };
    }
    fixed.push({ currency: code, amount });
  }
  return { percentage: percentage.trim(), fixed };
}

/** The partner's whole fee schedule: a percentage and fixed fees per currency, replaced at once when saved. */
function FeesForm(props: { session: OperatorSession; partner: PartnerSummary; onSaved: () => void }) {
  const { partner } = props;
  const [rows, setRows] = useState<FixedFeeRow[]>(() =>
    partner.fees.fixed.map((fee, id) => ({
      id,
      currency: fee.currency,
      amount: formatMinorUnits(BigInt(fee.amount), fiatCurrency(fee.currency)?.decimals ?? 2),
    })),
  );
  const [nextId, setNextId] = useState(rows.length);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const edit = (id: number, change: Partial<FixedFeeRow>) =>
    setRows((before) => before.map((row) => (row.id === id ? { ...row, ...change } : row)));

  const save = async (event: Event) => {
    event.preventDefault();
    const percentage = String(new FormData(event.currentTarget as HTMLFormElement).get('percentage') ?? '');
    const fees = feeScheduleOf(percentage, rows);
    if ('problem' in fees) {
      setOutcome({ failure: fees.problem });
      return;
    }
    setBusy(true);
    setOutcome(undefined);
    try {
      await setPartnerFees(props.session, partner.partnerId, fees);
      setOutcome({ saved: `Fees saved: ${feesText(fees)}. They apply to payments that succeed from now on.` });
      props.onSaved();
    } catch (error) {
      setOutcome({ failure: `Not saved: ${failureMessage(error as Error)}` });
    }
    setBusy(false);
  };

  return (
    <form class="panel" onSubmit={save} aria-labelledby="fees-heading">
      <h2 id="fees-heading">Fees</h2>
      <p class="hint">
        Taken from each payment of the partner's merchants: a percentage, plus a fixed fee per currency.
      </p>
      <div class="field narrow">
        <label for="fee-percentage">Percentage</label>
        <input
          id="fee-percentage"
          name="percentage"
          type="text"
          inputMode="decimal"
          required
          maxLength={16}
          defaultValue={partner.fees.percentage}
          aria-describedby="fee-percentage-hint"
        />
        <p id="fee-percentage-hint" class="hint">
          In percent: 1.5 takes 1.5% of each payment.
        </p>
      </div>
      <fieldset class="fixed-fees">
        <legend>Fixed fees per payment</legend>
        {rows.length === 0 && <p class="hint">None.</p>}
        {rows.map((row, index) => (
          <div class="fee-row" key={row.id}>
            <div class="field">
              <label for={`fee-currency-${row.id}`}>Currency {index + 1}</label>
              <input
                id={`fee-currency-${row.id}`}
                type="text"
                required
                maxLength={3}
                autocomplete="off"
                value={row.currency}
                onInput={(event) => edit(row.id, { currency: (event.currentTarget as HTMLInputElement).value })}
              />
            </div>
            <div class="field">
              <label for={`fee-amount-${row.id}`}>Amount {index + 1}</label>
              <input
                id={`fee-amount-${row.id}`}
                type="text"
                inputMode="decimal"
                required
                autocomplete="off"
                value={row.amount}
                onInput={(event) => edit(row.id, { amount: (event.currentTarget as HTMLInputElement).value })}
              />
            </div>
            <button
              type="button"
              class="quiet"
              onClick={() => setRows((before) => before.filter((each) => each.id !== row.id))}
            >
              Remove<span class="visually-hidden"> fixed fee {index + 1}</span>
            </button>
          </div>
        ))}
        <button
          type="button"
          onClick={() => {
            setRows((before) => [...before, { id: nextId, currency: '', amount: '' }]);
            setNextId(nextId + 1);
          }}
        >
          Add a fixed fee
        </button>
      </fieldset>
      <OutcomeNotice outcome={outcome} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save fees'}
        </button>
      </div>
    </form>
  );
}

/** The API version the partner's requests run under when they name none. */
function VersionForm(props: {
  session: OperatorSession;
  partner: PartnerSummary;
  apiVersions: string[];
  onSaved: () => void;
}) {
  const { partner } = props;
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const save = async (event: Event) => {
    event.preventDefault();
    const version = String(new FormData(event.currentTarget as HTMLFormElement).get('version') ?? '');
    setBusy(true);
    setOutcome(undefined);
    try {
      await pinPartnerVersion(props.session, partner.partnerId, version);
      setOutcome({ saved: `Pinned to ${version}.` });
      props.onSaved();
    } catch (error) {
      setOutcome({ failure: `Not pinned: ${failureMessage(error as Error)}` });
    }
    setBusy(false);
  };
  return (
    <form class="panel" onSubmit={save} aria-labelledby="version-heading">
      <h2 id="version-heading">API version</h2>
      <div class="field narrow">
        <label for="pinned-version">Version</label>
        <select id="pinned-version" name="version" aria-describedby="pinned-version-hint">
          {[...new Set([...props.apiVersions, partner.pinnedVersion])].map((version) => (
            <option key={version} value={version} selected={version === partner.pinnedVersion}>
              {version}
            </option>
          ))}
        </select>
        <p id="pinned-version-hint" class="hint">
          The partner's requests run under it unless they ask for another (Pay-Version).
        </p>
      </div>
      <OutcomeNotice outcome={outcome} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Pinning…' : 'Pin version'}
        </button>
      </div>
    </form>
  );
}

/**
 * Above what amount the buyers of the partner's payments are asked for their details, typed as the
 * `paygate partner set-data-threshold` command takes it; the service reads and checks it.
 */
function DataThresholdForm(props: { session: OperatorSession; partner: PartnerSummary; onSaved: () => void }) {
  const { partner } = props;
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const save = async (event: Event) => {
    event.preventDefault();
    const typed = String(new FormData(event.currentTarget as HTMLFormElement).get('threshold') ?? '').trim();
    setBusy(true);
    setOutcome(undefined);
    try {
      const stored = await setPartnerDataThreshold(props.session, partner.partnerId, typed);
      setOutcome({ saved: `Buyer data threshold saved: ${dataThresholdText(stored)}.` });
      props.onSaved();
    } catch (error) {
      setOutcome({ failure: `Not saved: ${failureMessage(error as Error)}` });
    }
    setBusy(false);
  };
  return (
    <form class="panel" onSubmit={save} aria-labelledby="data-threshold-heading">
      <h2 id="data-threshold-heading">Buyer data</h2>
      <p class="hint">
        Above this amount, buyers of the partner's payments are asked for their details before they pay. A merchant with
        a threshold of its own keeps it.
      </p>
      <div class="field narrow">
        <label for="data-threshold">Threshold</label>
        <input
          id="data-threshold"
          name="threshold"
          type="text"
          required
          maxLength={64}
          autocomplete="off"
          defaultValue={partner.dataThreshold}
          aria-describedby="data-threshold-hint"
        />
        <p id="data-threshold-hint" class="hint">
          <code>USD:100000</code> asks above 1,000.00 USD (other currencies converted); <code>100000</code> above 100000
          minor units of each payment's own currency; <code>none</code> never asks.
        </p>
      </div>
      <OutcomeNotice outcome={outcome} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save threshold'}
        </button>
      </div>
    </form>
  );
}

/** One partner: what it is, its fees to edit, its API version to pin, its buyer-data threshold to set. */
export function PartnerPage(props: { session: OperatorSession; partnerId: string; apiVersions: string[] }) {
  const partners = useLiveData('partners', listPartners, () => undefined);
  const partner = partners.data?.find((each) => each.partnerId === props.partnerId);
  const heading = partner ? partner.name : partners.data ? 'Partner not found' : 'Partner';
  usePageTitle(heading, CONSOLE_NAME);
  return (
    <>
      <p class="back">
        <a href={PARTNERS_PATH}>All partners</a>
      </p>
      <PageHeading>{heading}</PageHeading>
      {partners.error && <ErrorNotice error={partners.error} />}
      {partners.loading && <p class="loading">Loading the partner…</p>}
      {partners.data && !partner && <p>No partner has the id {props.partnerId}.</p>}
      {partner && (
        <>
          <dl class="facts">
            <div class="fact">
              <dt>Partner id</dt>
              <dd>
                <code>{partner.partnerId}</code>
              </dd>
            </div>
            <div class="fact">
              <dt>Fees</dt>
              <dd>{feesText(partner.fees)}</dd>
            </div>
            <div class="fact">
              <dt>API version</dt>
              <dd>
                <code>{partner.pinnedVersion}</code>
              </dd>
            </div>
            <div class="fact">
              <dt>Buyer data</dt>
              <dd>{dataThresholdText(partner.dataThreshold)}</dd>
            </div>
            <div class="fact">
              <dt>Merchants</dt>
              <dd>
                <a href={`${MERCHANTS_PATH}?${new URLSearchParams({ partnerId: partner.partnerId })}`}>
                  {partner.merchants} (see them)
                </a>
              </dd>
            </div>
            <div class="fact">
              <dt>Active API keys</dt>
              <dd>{partner.activeKeys}</dd>
            </div>
            <div class="fact">
              <dt>Created</dt>
              <dd>{formatDateTime(partner.createdAt)}</dd>
            </div>
          </dl>
          <FeesForm session={props.session} partner={partner} onSaved={partners.reload} />
          <VersionForm
            session={props.session}
            partner={partner}
            apiVersions={props.apiVersions}
            onSaved={partners.reload}
          />
          <DataThresholdForm session={props.session} partner={partner} onSaved={partners.reload} />
        </>
      )}
    </>
  );
}
