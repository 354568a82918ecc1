import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { ApiFailure } from './api.ts';
import { codeSpans, shortened, statusLabel } from './format.ts';
import type { NetworkDirectory } from './networks.ts';

/** The browser tab's title for a page of a console. */
export function usePageTitle(title: string, consoleName = 'paygate dashboard'): void {
  useEffect(() => {
    document.title = `${title} · ${consoleName}`;
  }, [title]);
}

/**
 * A page's heading: the one place focus moves to when the dashboard goes to another page, so a screen reader reads
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

export function StatusBadge(props: { status: string }) {
  return <span class={`status status-${props.status}`}>{statusLabel(props.status)}</span>;
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

/**
 * A transaction hash, linked to its explorer page where the network has an explorer; `short` shows its start and end
 * for a narrow column, the whole in a title.
 */
export function TransactionHash(props: {
  hash: string;
  chain: string | undefined;
  networks: NetworkDirectory | undefined;
  short?: boolean;
}) {
  const href = props.chain ? props.networks?.transactionLink(props.chain, props.hash) : undefined;
  const hash = props.short ? (
    <code class="hash" title={props.hash}>
      {shortened(props.hash)}
    </code>
  ) : (
    <code class="hash">{props.hash}</code>
  );
  if (!href) return hash;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {hash}
      <span class="visually-hidden"> (opens the explorer in a new tab)</span>
    </a>
  );
}
