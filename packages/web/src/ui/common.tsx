import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure } from './api.ts';
import { codeSpans } from './format.ts';

/** The browser tab's title for a page of a console. */
export function usePageTitle(title: string, consoleName = 'paygate dashboard'): void {
  useEffect(() => {
    document.title = `${title} · ${consoleName}`;
  }, [title]);
}

/**
 * A page's heading: the one place focus moves to when a console goes to another page, so a screen reader reads
 * where it is, as it would after a page load.
 */
export function PageHeading(props: { children: ComponentChildren }) {
  return (
    <h1 id="page-heading" tabIndex={-1}>
      {props.children}
    </h1>
  );
}

/** A description from the API, its `quoted` parts shown as code rather than with their backticks. */
export function WithCode(props: { text: string }) {
  return (
    <>{codeSpans(props.text).map((part, index) => (part.code ? <code key={index}>{part.text}</code> : part.text))}</>
  );
}

/** How long a copy button says what it did. */
const COPY_FEEDBACK_MS = 4_000;

/**
 * Puts `text` on the clipboard. A page served over plain http (a service on a local network) has no Clipboard API:
 * there the older copy command, of a selection made for it, still works.
 */
async function writeToClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const focused = document.activeElement as HTMLElement | null;
    const area = document.createElement('textarea');
    area.value = text;
    area.readOnly = true;
    area.className = 'visually-hidden';
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    focused?.focus();
    return copied;
  }
}

/**
 * A button that copies an id or a hash whole (`what` names it: `payment id`), and says beside it that it did; the
 * words are read out as well as shown.
 */
export function CopyButton(props: { text: string; what: string }) {
  const [outcome, setOutcome] = useState<'copied' | 'failed' | undefined>();
  useEffect(() => {
    if (!outcome) return;
    const timer = setTimeout(() => setOutcome(undefined), COPY_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [outcome]);
  return (
    <span class="copy">
      <button
        type="button"
        class="copy-button"
        aria-label={`Copy ${props.what}`}
        data-copy={props.text}
        onClick={async () => setOutcome((await writeToClipboard(props.text)) ? 'copied' : 'failed')}
      >
        Copy
      </button>
      <span class="copy-feedback" aria-live="polite">
        {outcome === 'copied' ? 'Copied' : outcome === 'failed' ? 'Not copied: select it and copy' : ''}
      </span>
    </span>
  );
}

/** An id shown whole, as code, with its copy button. */
export function CopyableId(props: { id: string; what: string }) {
  return (
    <span class="copyable">
      <code class="hash">{props.id}</code> <CopyButton text={props.id} what={props.what} />
    </span>
  );
}

/** A wait in words: `45 seconds`, `3 minutes`, `2 hours`. */
export function inWords(seconds: number): string {
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  if (seconds < 60) return plural(seconds, 'second');
  if (seconds < 3600) return plural(Math.ceil(seconds / 60), 'minute');
  return plural(Math.ceil(seconds / 3600), 'hour');
}

/** What went wrong, in words: the API's own message, or that the service could not be reached. */
export function failureMessage(error: Error): string {
  if (error instanceof ApiFailure) {
    if (error.code === 'rate_limited' && error.retryAfterSeconds) {
      return `Too many requests; try again in ${inWords(error.retryAfterSeconds)}.`;
    }
    // A refused request names what was wrong with it: the whole body's fault, or a field's.
    const issues = error.issues.map((issue) =>
      issue.field === 'body' ? issue.message : `${issue.field} ${issue.message}`,
    );
    return issues.length ? `${error.message.replace(/\.$/, '')}: ${issues.join('; ')}.` : error.message;
  }
  return 'The service could not be reached; check the connection and try again.';
}

export function ErrorNotice(props: { error: Error; prefix?: string }) {
  return (
    <p class="error" role="alert">
      {props.prefix ? `${props.prefix} ` : ''}
      {failureMessage(props.error)}
    </p>
  );
}

/** A row of a description list. */
export function Fact(props: { term: string; children: ComponentChildren }) {
  return (
    <div class="fact">
      <dt>{props.term}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}
