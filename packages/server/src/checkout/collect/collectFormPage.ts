import type { BuyerDataSchema } from '../../gateway/dataCollection/buyerDataSchema.ts';
import type { BuyerDataProblems } from '../../gateway/dataCollection/validateBuyerData.ts';
import { html, lines, page, SafeHtml } from '../html.ts';

/** What the page tells the wallet hosting it (D14): sent to every host bridge present. */
export type HostSignal = { type: 'IC_COMPLETE'; success: true } | { type: 'IC_ERROR'; success: false; reason: string };

/** The browser's autofill names of the fields it knows. */
const AUTOCOMPLETE: Record<string, string> = { fullName: 'name', dateOfBirth: 'bday' };

function layout(title: string, signal: HostSignal | undefined, body: SafeHtml): string {
  return page({
    title,
    stylesheet: 'assets/collect-form.css',
    head: html`<meta name="referrer" content="no-referrer">
<script src="assets/collect-form.js" defer></script>`,
    bodyAttributes: signal ? { 'data-host-signal': JSON.stringify(signal) } : {},
    body: html`<main>
${body}
</main>`,
  });
}

type Property = {
  type: string;
  title: string;
  description?: string;
  format?: string;
  formatMinimum?: string;
  formatMaximum?: string;
  maxLength?: number;
};

function describedBy(id: string, property: Property, problem: string | undefined): SafeHtml | undefined {
  const ids = [property.description ? `${id}-hint` : '', problem ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? html` aria-describedby="${ids.join(' ')}"` : undefined;
}

function hintAndError(id: string, property: Property, problem: string | undefined): SafeHtml {
  return html`${property.description && html`<p class="hint" id="${id}-hint">${property.description}</p>`}${
    problem && html`<p class="error" id="${id}-error"><span class="visually-hidden">Error: </span>${problem}</p>`
  }`;
}

/** `marked` adds "(optional)" to a field that is not required; the alternatives of a group are not marked. */
function fieldHtml(
  name: string,
  property: Property,
  required: boolean,
  marked: boolean,
  value: unknown,
  problem: string | undefined,
): SafeHtml {
  const id = `field-${name}`;
  const invalid = problem && html` aria-invalid="true"`;
  const requiredAttribute = required && html` required`;
  if (property.type === 'boolean') {
    return html`<div class="field checkbox${problem ? ' has-error' : ''}">
<input type="checkbox" id="${id}" name="${name}" value="on"${value === true && html` checked`}${requiredAttribute}${invalid}${describedBy(id, property, problem)}>
<label for="${id}">${property.title}</label>
${hintAndError(id, property, problem)}
</div>`;
  }
  const isDate = property.format === 'date';
  const attributes = [
    html`type="${isDate ? 'date' : 'text'}"`,
    html`id="${id}"`,
    html`name="${name}"`,
    typeof value === 'string' && html`value="${value}"`,
    isDate && property.formatMinimum && html`min="${property.formatMinimum}"`,
    isDate && property.formatMaximum && html`max="${property.formatMaximum}"`,
    property.maxLength && html`maxlength="${property.maxLength}"`,
    AUTOCOMPLETE[name] && html`autocomplete="${AUTOCOMPLETE[name]}"`,
  ].filter((attribute) => attribute instanceof SafeHtml);
  return html`<div class="field${problem ? ' has-error' : ''}">
<label for="${id}">${property.title}${required || !marked ? '' : html` <span class="optional">(optional)</span>`}</label>
${hintAndError(id, property, problem)}
<input ${attributes.map((attribute, index) => html`${index ? ' ' : ''}${attribute}`)}${requiredAttribute}${invalid}${describedBy(id, property, problem)}>
</div>`;
}

export interface CollectFormModel {
  merchantName: string;
  amountText: string;
  schema: BuyerDataSchema;
  /** The answers already given, shown again beside their errors. */
  values: Record<string, unknown>;
  problems: BuyerDataProblems;
}

/**
 * The form of the schema: one labelled control per property, hints and errors tied to their controls, the
 * alternatives of an `anyOf` (give at least one) grouped in a fieldset, and a summary of errors that links to them.
 * It posts back to its own URL and works without JavaScript.
 */
export function renderCollectForm(model: CollectFormModel): string {
  const { schema, values, problems } = model;
  const properties = schema.properties as Record<string, Property>;
  const required = new Set<string>(schema.required);
  const alternatives = schema.anyOf.flatMap((branch) => branch.required as readonly string[]);
  const rendered = new Set<string>();
  const parts: SafeHtml[] = [];
  for (const name of Object.keys(properties)) {
    if (rendered.has(name)) continue;
    if (alternatives.includes(name)) {
      const legend = `${alternatives.map((alternative) => properties[alternative]?.title ?? alternative).join(' or ')} (at least one)`;
      const fields = alternatives.map((alternative) => {
        rendered.add(alternative);
        return fieldHtml(
          alternative,
          properties[alternative] as Property,
          false,
          false,
          values[alternative],
          problems.get(alternative),
        );
      });
      parts.push(html`<fieldset>\n<legend>${legend}</legend>\n${lines(fields)}\n</fieldset>`);
      continue;
    }
    rendered.add(name);
    parts.push(
      fieldHtml(name, properties[name] as Property, required.has(name), true, values[name], problems.get(name)),
    );
  }
  const summary =
    problems.size > 0 &&
    html`<div class="error-summary" role="alert" tabindex="-1" autofocus id="error-summary">
<h2>Please check your details</h2>
<ul>
${lines([...problems].map(([name, message]) => html`<li><a href="#field-${name}">${properties[name]?.title ?? name}: ${message}</a></li>`))}
</ul>
</div>`;
  const title = `${problems.size ? 'Error: ' : ''}Your details for ${model.merchantName}`;
  return layout(
    title,
    undefined,
    html`<h1>Your details</h1>
<p class="lead">${model.merchantName} asks for these details before you pay <strong>${model.amountText}</strong>.</p>
${summary}
<form method="post" novalidate>
${lines(parts)}
<button type="submit">Continue</button>
</form>`,
  );
}

/** After a successful submission: the wallet is told at once; a person sees where to go next. */
export function renderCollectDone(merchantName: string): string {
  return layout(
    'Details received',
    { type: 'IC_COMPLETE', success: true },
    html`<h1 tabindex="-1" autofocus>Details received</h1>
<p>Thank you. ${merchantName} has your details; return to your wallet to pay.</p>`,
  );
}

/** A link that cannot be used (forged, expired, for a payment no longer payable); the wallet is told why. */
export function renderCollectRefused(heading: string, explanation: string, reason: string): string {
  return layout(
    heading,
    { type: 'IC_ERROR', success: false, reason },
    html`<h1 tabindex="-1" autofocus>${heading}</h1>
<p>${explanation}</p>
<p>Return to your wallet and start the payment again.</p>`,
  );
}
