import { useEffect, useRef, useState } from 'preact/hooks';
import { idempotencyKey } from '../ui/api.ts';
import { formatFiat } from '../ui/format.ts';
import { pressKey, withTip } from './keypadEntry.ts';
import { type Charge, createCharge, type Device } from './pointOfSaleApi.ts';

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '00', '0', 'back'];

/** The till: the amount on a keypad in the device's currency, a tip preset, a note, and Charge. */
export function TillScreen(props: { device: Device; onCharged: (charge: Charge) => void; onToday: () => void }) {
  const { device } = props;
  const unit = `iso4217/${device.currency}`;
  const [minorUnits, setMinorUnits] = useState('');
  const [tipPercent, setTipPercent] = useState<number | undefined>(undefined);
  const [note, setNote] = useState('');
  const [charging, setCharging] = useState(false);
  const [problem, setProblem] = useState('');
  // The charge's id is kept while its amount, tip and note stay the same: Charge pressed again after a lost answer
  // names the same charge, which the service makes once.
  const sent = useRef<{ fields: string; chargeId: string } | undefined>(undefined);
  const { tip, total } = withTip(minorUnits, tipPercent);
  const canCharge = minorUnits !== '' && !charging;

  const charge = async () => {
    if (!canCharge) return;
    setCharging(true);
    setProblem('');
    const trimmed = note.trim();
    const fields = JSON.stringify([minorUnits, tipPercent ?? null, trimmed]);
    if (sent.current?.fields !== fields) sent.current = { fields, chargeId: idempotencyKey() };
    try {
      props.onCharged(
        await createCharge({
          chargeId: sent.current.chargeId,
          amount: minorUnits,
          ...(tipPercent === undefined ? {} : { tipPercent }),
          ...(trimmed ? { note: trimmed } : {}),
        }),
      );
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
      setCharging(false);
    }
  };

  // A keyboard or a barcode scanner types digits too; typing in the note field is left alone.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.target as HTMLElement | null)?.tagName === 'INPUT') return;
      if (/^\d$/.test(event.key)) setMinorUnits((current) => pressKey(current, event.key));
      else if (event.key === 'Backspace') setMinorUnits((current) => pressKey(current, 'back'));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <main class="till">
      <section class="entry" aria-labelledby="amount-heading">
        <h1 id="amount-heading" class="visually-hidden">
          New sale
        </h1>
        <output class="amount" aria-live="polite" aria-label="Amount">
          {formatFiat({ unit, value: minorUnits || '0' })}
        </output>
        {device.tipPercents.length > 0 && (
          <fieldset class="tips">
            <legend>Tip</legend>
            <button type="button" aria-pressed={tipPercent === undefined} onClick={() => setTipPercent(undefined)}>
              No tip
            </button>
            {device.tipPercents.map((percent) => (
              <button
                key={percent}
                type="button"
                aria-pressed={tipPercent === percent}
                onClick={() => setTipPercent(percent)}
              >
                {percent}%
                <span class="tip-amount">
                  {formatFiat({ unit, value: withTip(minorUnits, percent).tip.toString() })}
                </span>
              </button>
            ))}
          </fieldset>
        )}
        <label class="note">
          Note or reference (optional)
          <input
            type="text"
            maxLength={140}
            value={note}
            onInput={(event) => setNote((event.target as HTMLInputElement).value)}
          />
        </label>
        {tip > 0n && (
          <p class="detail">
            {formatFiat({ unit, value: minorUnits })} + tip {formatFiat({ unit, value: tip.toString() })}
          </p>
        )}
        <button type="button" class="primary charge-button" disabled={!canCharge} onClick={charge}>
          {charging ? 'Charging…' : `Charge ${formatFiat({ unit, value: total.toString() })}`}
        </button>
        {problem && (
          <p class="problem" role="alert">
            {problem}
          </p>
        )}
      </section>
      <section class="keypad" aria-label="Keypad">
        {KEYS.map((key) => (
          <button
            key={key}
            type="button"
            aria-label={key === 'back' ? 'Delete last digit' : undefined}
            onClick={() => setMinorUnits((current) => pressKey(current, key))}
          >
            {key === 'back' ? '⌫' : key}
          </button>
        ))}
        <button type="button" class="clear" onClick={() => setMinorUnits('')}>
          Clear
        </button>
      </section>
      <nav class="till-nav" aria-label="Point of sale">
        <button type="button" class="secondary" onClick={props.onToday}>
          Today’s payments
        </button>
      </nav>
    </main>
  );
}
