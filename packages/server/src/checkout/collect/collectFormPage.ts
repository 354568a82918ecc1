import type { BuyerDataSchema } from '../../gateway/dataCollection/buyerDataSchema.ts';
import type { BuyerDataProblems } from '../../gateway/dataCollection/validateBuyerData.ts';

/** What the page tells the wallet hosting it (D14): sent to every host bridge present. */
export type HostSignal = { type: 'IC_COMPLETE'; success: true } | { type: 'IC_ERROR'; success: false; reason: string };

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] as string);
}

/** The browser's autofill names of the fields it knows. */
const AUTOCOMPLETE: Record<string, string> = { fullName: 'name', dateOfBirth: 'bday' };

function layout(title: string, signal: HostSignal | undefined, body: string): string {
  const signalAttribute = signal ? ` data-host-signal="${escapeHtml(JSON.stringify(signal))}"` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="assets/collect-form.css">
<script src="assets/collect-form.js" defer></script>
</head>
<body${signalAttribute}>
<main>
${body}
</main>
</body>
</html>
`;
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

function describedBy(id: string, property: Property, problem: string | undefined): string {
  const ids = [property.description ? `${id}-hint` : '', problem ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ` aria-describedby="${ids.join(' ')}"` : '';
}

function hintAndError(id: string, property: Property, problem: string | undefined): string {
  return [
    property.description ? `<p class="hint" id="${id}-hint">${escapeHtml(property.description)}</p>` : '',
    problem
      ? `<p class="error" id="${id}-error"><span class="visually-hidden">Error: </span>${escapeHtml(problem)}</p>`
      : '',
  ].join('');
}

/** `marked` adds "(optional)" to a field that is not required; the alternatives of a group are not marked. */
function fieldHtml(
  name: string,
  property: Property,
  required: boolean,
  marked: boolean,
  value: unknown,
  problem: string | undefined,
): string {
  const id = `field-${name}`;
  const invalid = problem ? ' aria-invalid="true"' : '';
  const requiredAttribute = required ? ' required' : '';
  if (property.type === 'boolean') {
    return `<div class="field checkbox${problem ? ' has-error' : ''}">
<input type="checkbox" id="${id}" name="${name}" value="on"${value === true ? ' checked' : ''}${requiredAttribute}${invalid}${describedBy(id, property, problem)}>
<label for="${id}">${escapeHtml(property.title)}</label>
${hintAndError(id, property, problem)}
</div>`;
  }
  const isDate = property.format === 'date';
  const attributes = [
    `type="${isDate ? 'date' : 'text'}"`,
    `id="${id}"`,
    `name="${name}"`,
    typeof value === 'string' ? `value="${escapeHtml(value)}"` : '',
    isDate && property.formatMinimum ? `min="${property.formatMinimum}"` : '',
    isDate && property.formatMaximum ? `max="${property.formatMaximum}"` : '',
    property.maxLength ? `maxlength="${property.maxLength}"` : '',
    AUTOCOMPLETE[name] ? `autocomplete="${AUTOCOMPLETE[name]}"` : '',
  ].filter(Boolean);
  return `<div class="field${problem ? ' has-error' : ''}">
<label for="${id}">${escapeHtml(property.title)}${required || !marked ? '' : ' <span class="optional">(optional)</span>'}</label>
${hintAndError(id, property, problem)}
<input ${attributes.join(' ')}${requiredAttribute}${invalid}${describedBy(id, property, problem)}>
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
  const parts: string[] = [];
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
      parts.push(`<fieldset>\n<legend>${escapeHtml(legend)}</legend>\n${fields.join('\n')}\n</fieldset>`);
      continue;
    }
    rendered.add(name);
    parts.push(
      fieldHtml(name, properties[name] as Property, required.has(name), true, values[name], problems.get(name)),
    );
  }
  const summary = problems.size
    ? `<div class="error-summary" role="alert" tabindex="-1" autofocus id="error-summary">
<h2>Please check your details</h2>
<ul>
${[...problems].map(([name, message]) => `<li><a href="#field-${escapeHtml(name)}">${escapeHtml(`${properties[name]?.title ?? name}: ${message}`)}</a></li>`).join('\n')}
</ul>
</div>`
    : '';
  const title = `${problems.size ? 'Error: ' : ''}Your details for ${model.merchantName}`;
  return layout(
    title,
    undefined,
    `<h1>Your details</h1>
<p class="lead">${escapeHtml(model.merchantName)} asks for these details before you pay <strong>${escapeHtml(model.amountText)}</strong>.</p>
${summary}
<form method="post" novalidate>
${parts.join('\n')}
<button type="submit">Continue</button>
</form>`,
  );
}

/** After a successful submission: the wallet is told at once; a person sees where to go next. */
export function renderCollectDone(merchantName: string): string {
  return layout(
    'Details received',
    { type: 'IC_COMPLETE', success: true },
    `<h1 tabindex="-1" autofocus>Details received</h1>
<p>Thank you. ${escapeHtml(merchantName)} has your details; return to your wallet to pay.</p>`,
  );
}

/** A link that cannot be used (forged, expired, for a payment no longer payable); the wallet is told why. */
export function renderCollectRefused(heading: string, explanation: string, reason: string): string {
  return layout(
    heading,
    { type: 'IC_ERROR', success: false, reason },
    `<h1 tabindex="-1" autofocus>${escapeHtml(heading)}</h1>
<p>${escapeHtml(explanation)}</p>
<p>Return to your wallet and start the payment again.</p>`,
  );
}
