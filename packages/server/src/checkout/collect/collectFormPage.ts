import type { BuyerDataFieldId, BuyerDataSchema } from '../../gateway/dataCollection/buyerDataSchema.ts';
import type { BuyerDataProblems, BuyerDataReason } from '../../gateway/dataCollection/validateBuyerData.ts';
import { html, lines, page, SafeHtml } from '../html.ts';
import type { PlainMessageKey } from '@paygate/web/checkout/i18n/catalogue.ts';
import type { CheckoutLocale } from '@paygate/web/checkout/i18n/locales.ts';
import type { Translator } from '@paygate/web/checkout/i18n/translate.ts';
import { translator } from '@paygate/web/checkout/i18n/translator.ts';
import { translatedHtml } from '../translatedHtml.ts';

/** What the page tells the wallet hosting it (D14): sent to every host bridge present. */
export type HostSignal = { type: 'IC_COMPLETE'; success: true } | { type: 'IC_ERROR'; success: false; reason: string };

/** Why a form link cannot be used, as the page tells the wallet (`IC_ERROR`'s `reason`). */
export type CollectRefusal = 'link_expired' | 'invalid_link' | 'payment_not_payable' | 'unavailable';

/** The browser's autofill names of the fields it knows. */
const AUTOCOMPLETE: Record<string, string> = { fullName: 'name', dateOfBirth: 'bday' };

/** Each field's words in the catalogue: a field the schema gains fails to compile until it has them. */
const FIELD_WORDS: Record<
  BuyerDataFieldId,
  { label: PlainMessageKey; hint: PlainMessageKey; missing: PlainMessageKey }
> = {
  fullName: { label: 'form.fullName', hint: 'form.fullNameHint', missing: 'form.problem.fullNameMissing' },
  dateOfBirth: {
    label: 'form.dateOfBirth',
    hint: 'form.dateOfBirthHint',
    missing: 'form.problem.dateOfBirthMissing',
  },
  placeOfBirth: { label: 'form.placeOfBirth', hint: 'form.placeHint', missing: 'form.problem.placeMissing' },
  placeOfResidence: { label: 'form.placeOfResidence', hint: 'form.placeHint', missing: 'form.problem.placeMissing' },
  termsAccepted: {
    label: 'form.termsAccepted',
    hint: 'form.termsAcceptedHint',
    missing: 'form.problem.termsNotAccepted',
  },
};

const REFUSALS: Record<CollectRefusal, { heading: PlainMessageKey; text: PlainMessageKey }> = {
  link_expired: { heading: 'form.expired.heading', text: 'form.expired.text' },
  invalid_link: { heading: 'form.invalid.heading', text: 'form.invalid.text' },
  payment_not_payable: { heading: 'form.notPayable.heading', text: 'form.notPayable.text' },
  unavailable: { heading: 'form.unavailable.heading', text: 'form.unavailable.text' },
};

function wordsOf(name: string) {
  return Object.hasOwn(FIELD_WORDS, name) ? FIELD_WORDS[name as BuyerDataFieldId] : undefined;
}

/** What is wrong with each field, in the form's language. */
export function problemsIn(t: Translator, reasons: ReadonlyMap<string, BuyerDataReason>): BuyerDataProblems {
  return new Map(
    [...reasons].map(([field, reason]): [string, string] => {
      switch (reason.kind) {
        case 'missing':
          return [field, t(wordsOf(field)?.missing ?? 'form.problem.invalid')];
        case 'termsNotAccepted':
          return [field, t('form.problem.termsNotAccepted')];
        case 'placeMissing':
          return [field, t('form.problem.placeMissing')];
        case 'notADate':
          return [field, t('form.problem.notADate')];
        case 'dateNotPast':
          return [field, t('form.problem.dateNotPast')];
        case 'tooLong':
          return [field, t('form.problem.tooLong', { count: reason.limit })];
        default:
          // The form sends only its own fields, as text or a tick: the rest cannot come from it.
          return [field, t('form.problem.invalid')];
      }
    }),
  );
}

function layout(locale: CheckoutLocale, title: string, signal: HostSignal | undefined, body: SafeHtml): string {
  return page({
    lang: locale,
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
  format?: string;
  formatMinimum?: string;
  formatMaximum?: string;
  maxLength?: number;
};

function describedBy(id: string, problem: string | undefined): SafeHtml {
  return html` aria-describedby="${[`${id}-hint`, ...(problem ? [`${id}-error`] : [])].join(' ')}"`;
}

function hintAndError(t: Translator, id: string, hint: string, problem: string | undefined): SafeHtml {
  return html`<p class="hint" id="${id}-hint">${hint}</p>${
    problem &&
    html`<p class="error" id="${id}-error"><span class="visually-hidden">${t('form.errorLabel')} </span>${problem}</p>`
  }`;
}

/** `marked` adds "(optional)" to a field that is not required; the alternatives of a group are not marked. */
function fieldHtml(
  t: Translator,
  name: BuyerDataFieldId,
  property: Property,
  required: boolean,
  marked: boolean,
  value: unknown,
  problem: string | undefined,
): SafeHtml {
  const id = `field-${name}`;
  const words = FIELD_WORDS[name];
  const invalid = problem && html` aria-invalid="true"`;
  const requiredAttribute = required && html` required`;
  if (property.type === 'boolean') {
    return html`<div class="field checkbox${problem ? ' has-error' : ''}">
<input type="checkbox" id="${id}" name="${name}" value="on"${value === true && html` checked`}${requiredAttribute}${invalid}${describedBy(id, problem)}>
<label for="${id}">${t(words.label)}</label>
${hintAndError(t, id, t(words.hint), problem)}
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
<label for="${id}">${t(words.label)}${required || !marked ? '' : html` <span class="optional">${t('form.optional')}</span>`}</label>
${hintAndError(t, id, t(words.hint), problem)}
<input ${attributes.map((attribute, index) => html`${index ? ' ' : ''}${attribute}`)}${requiredAttribute}${invalid}${describedBy(id, problem)}>
</div>`;
}

export interface CollectFormModel {
  locale: CheckoutLocale;
  merchantName: string;
  amountText: string;
  schema: BuyerDataSchema;
  /** The answers already given, shown again beside their errors. */
  values: Record<string, unknown>;
  /** What is wrong with the answers, in the form's language (`problemsIn`). */
  problems: BuyerDataProblems;
}

/**
 * The form of the schema: one labelled control per property, hints and errors tied to their controls, the
 * alternatives of an `anyOf` (give at least one) grouped in a fieldset, and a summary of errors that links to them.
 * It posts back to its own URL and works without JavaScript.
 */
export function renderCollectForm(model: CollectFormModel): string {
  const { schema, values, problems } = model;
  const t = translator(model.locale);
  const properties = schema.properties as Record<BuyerDataFieldId, Property>;
  const required = new Set<string>(schema.required);
  const alternatives = schema.anyOf.flatMap((branch) => branch.required as readonly BuyerDataFieldId[]);
  const rendered = new Set<string>();
  const parts: SafeHtml[] = [];
  for (const name of Object.keys(properties) as BuyerDataFieldId[]) {
    if (rendered.has(name)) continue;
    if (alternatives.includes(name)) {
      // The schema's one group of alternatives: the places.
      const legend = t('form.placeGroup');
      const fields = alternatives.map((alternative) => {
        rendered.add(alternative);
        return fieldHtml(
          t,
          alternative,
          properties[alternative],
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
    parts.push(fieldHtml(t, name, properties[name], required.has(name), true, values[name], problems.get(name)));
  }
  const summary =
    problems.size > 0 &&
    html`<div class="error-summary" role="alert" tabindex="-1" autofocus id="error-summary">
<h2>${t('form.errorSummary')}</h2>
<ul>
${lines(
  [...problems].map(([name, problem]) => {
    const words = wordsOf(name);
    const field = words ? t(words.label) : name;
    return html`<li><a href="#field-${name}">${t('form.summaryItem', { field, problem })}</a></li>`;
  }),
)}
</ul>
</div>`;
  const merchant = model.merchantName;
  return layout(
    model.locale,
    problems.size ? t('form.titleWithErrors', { merchant }) : t('form.title', { merchant }),
    undefined,
    html`<h1>${t('form.heading')}</h1>
<p class="lead">${translatedHtml(t, 'form.lead', { merchant, amount: html`<strong>${model.amountText}</strong>` })}</p>
${summary}
<form method="post" novalidate>
${lines(parts)}
<button type="submit">${t('form.continue')}</button>
</form>`,
  );
}

/** After a successful submission: the wallet is told at once; a person sees where to go next. */
export function renderCollectDone(merchantName: string, locale: CheckoutLocale): string {
  const t = translator(locale);
  return layout(
    locale,
    t('form.done.heading'),
    { type: 'IC_COMPLETE', success: true },
    html`<h1 tabindex="-1" autofocus>${t('form.done.heading')}</h1>
<p>${t('form.done.text', { merchant: merchantName })}</p>`,
  );
}

/** A link that cannot be used (forged, expired, for a payment no longer payable); the wallet is told why. */
export function renderCollectRefused(reason: CollectRefusal, locale: CheckoutLocale): string {
  const t = translator(locale);
  const words = REFUSALS[reason];
  return layout(
    locale,
    t(words.heading),
    { type: 'IC_ERROR', success: false, reason },
    html`<h1 tabindex="-1" autofocus>${t(words.heading)}</h1>
<p>${t(words.text)}</p>
<p>${t('form.startAgain')}</p>`,
  );
}
