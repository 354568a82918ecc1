import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { failureMessage } from './common.tsx';

export interface ConfirmQuestionProps {
  /** What will happen, asked as a question: the fieldset's legend. */
  question: ComponentChildren;
  /** The confirming button, and its text while the change is sent: `Yes, delete the endpoint`, `Deleting…`. */
  confirmLabel: string;
  busyLabel: string;
  /** The button that leaves things as they are: `Keep the endpoint`. */
  keepLabel: string;
  /** Before the API's refusal in words: `Not deleted`. */
  failurePrefix: string;
  /** A change that loses something is red; one that restores something is the page's main action. */
  tone?: 'danger' | 'primary';
  /** Makes the change; a refusal it throws is shown, and the question stays to try again or keep. */
  /** Says a refusal in words; the API's own message by default. */
  explainFailure?: (error: Error) => string;
  onConfirm: () => Promise<void>;
  onKeep: () => void;
}

/**
 * The question before a change that cannot be undone. It takes the focus when it appears, so a screen reader reads
 * it, and keeps both buttons disabled while the change is sent, so it is sent once.
 */
export function ConfirmQuestion(props: ConfirmQuestionProps) {
  const question = useRef<HTMLFieldSetElement>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  useEffect(() => question.current?.focus(), []);
  const confirm = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      await props.onConfirm();
    } catch (error) {
      setFailure((props.explainFailure ?? failureMessage)(error as Error));
      setBusy(false);
    }
  };
  return (
    <fieldset class="confirm" ref={question} tabIndex={-1}>
      <legend>{props.question}</legend>
      {failure && (
        <p class="error" role="alert">
          {props.failurePrefix}: {failure}
        </p>
      )}
      <div class="actions">
        <button type="button" class={props.tone ?? 'danger'} disabled={busy} onClick={confirm}>
          {busy ? props.busyLabel : props.confirmLabel}
        </button>
        <button type="button" disabled={busy} onClick={props.onKeep}>
          {props.keepLabel}
        </button>
      </div>
    </fieldset>
  );
}

/** A button that asks first (`Delete endpoint…`), then the question; keeping things as they are shows the button again. */
export function ConfirmAction(
  props: Omit<ConfirmQuestionProps, 'onKeep'> & {
    askLabel: string;
    /** What the button does, shown beside it. */
    hint?: ComponentChildren;
  },
) {
  const [asking, setAsking] = useState(false);
  if (asking) return <ConfirmQuestion {...props} onKeep={() => setAsking(false)} />;
  return (
    <>
      <button type="button" onClick={() => setAsking(true)}>
        {props.askLabel}
      </button>
      {props.hint && <p class="hint">{props.hint}</p>}
    </>
  );
}
