import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A secret the API shows this once (an API key, a webhook signing secret; only its hash or the receiver keeps it),
 * with a warning, copied by a button, or selected for the person to copy where the browser does not let a page write
 * to the clipboard (a service reached over plain http). The panel takes the focus, so a screen reader reads it.
 */
export function SecretShownOnce(props: {
  heading: string;
  /** What the secret is: `API key`, `Signing secret`. */
  label: string;
  secret: string;
  warning: ComponentChildren;
  /** What else to keep beside it (ids). */
  children?: ComponentChildren;
  onDone: () => void;
}) {
  const panel = useRef<HTMLElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'copied' | 'selected' | undefined>();
  useEffect(() => panel.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('copied');
    } catch {
      field.current?.select();
      setCopied('selected');
    }
  };
  return (
    <section class="panel created-secret" ref={panel} tabIndex={-1} aria-labelledby="secret-heading">
      <h2 id="secret-heading">{props.heading}</h2>
      <p class="notice" id="secret-warning">
        {props.warning}
      </p>
      <label for="secret-value">{props.label}</label>
      <div class="copy-row">
        <input
          id="secret-value"
          ref={field}
          type="text"
          readOnly
          spellcheck={false}
          value={props.secret}
          aria-describedby="secret-warning"
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p class="hint" role="status">
        {copied === 'copied' && 'Copied to the clipboard.'}
        {copied === 'selected' &&
          'This browser does not let the page copy: the text is selected, press Ctrl+C (⌘C on a Mac).'}
      </p>
      {props.children}
      <div class="actions">
        <button type="button" class="primary" onClick={props.onDone}>
          Done, it is kept
        </button>
      </div>
    </section>
  );
}
