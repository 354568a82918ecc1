import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { type BuyerDataSchema, buyerDataSchema, PLACE_FIELDS } from './buyerDataSchema.ts';

/** Buyer data that passed the schema: field id to value. */
export type BuyerData = Record<string, string | boolean>;

/** Per field id, what is wrong with it, in words a buyer can act on. */
export type BuyerDataProblems = Map<string, string>;

/** What is wrong with a field, for a page to say in the buyer's language. */
export type BuyerDataReason =
  | { kind: 'missing' }
  | { kind: 'termsNotAccepted' }
  | { kind: 'placeMissing' }
  | { kind: 'notAField' }
  | { kind: 'notADate' }
  | { kind: 'dateNotPast' }
  | { kind: 'tooLong'; limit: number }
  | { kind: 'wrongType'; type: string }
  | { kind: 'invalid'; message: string };

export type BuyerDataResult =
  | { ok: true; data: BuyerData }
  | {
      ok: false;
      /** In English, as the API reports them. */
      problems: BuyerDataProblems;
      /** The same problems by field, as reasons. */
      reasons: Map<string, BuyerDataReason>;
    };

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);

// The schema changes once a day (its latest date of birth); one compiled validator per day is kept.
let compiled: { day: string; validate: ValidateFunction } | undefined;

function validatorFor(schema: BuyerDataSchema): ValidateFunction {
  const day = schema.properties.dateOfBirth.formatMaximum;
  if (compiled?.day !== day) compiled = { day, validate: ajv.compile(schema) };
  return compiled.validate;
}

function reasonOf(error: ErrorObject): [string, BuyerDataReason] | undefined {
  const field = error.instancePath.split('/').filter(Boolean)[0] ?? '';
  switch (error.keyword) {
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      // The anyOf branches report each place as required: one reason for the pair is given below.
      if (PLACE_FIELDS.includes(missing as (typeof PLACE_FIELDS)[number])) return undefined;
      return [missing, missing === 'termsAccepted' ? { kind: 'termsNotAccepted' } : { kind: 'missing' }];
    }
    case 'anyOf':
      return ['placeOfBirth', { kind: 'placeMissing' }];
    case 'additionalProperties':
      return [(error.params as { additionalProperty: string }).additionalProperty, { kind: 'notAField' }];
    case 'format':
    case 'formatMinimum':
      return [field, { kind: 'notADate' }];
    case 'formatMaximum':
      return [field, { kind: 'dateNotPast' }];
    case 'const':
      return [field, { kind: 'termsNotAccepted' }];
    case 'maxLength':
      return [field, { kind: 'tooLong', limit: (error.params as { limit: number }).limit }];
    case 'type':
      return [field, { kind: 'wrongType', type: (error.params as { type: string }).type }];
    default:
      return [field, { kind: 'invalid', message: error.message ?? 'is not valid' }];
  }
}

function englishProblem(field: string, reason: BuyerDataReason, schema: BuyerDataSchema): string {
  const titles = schema.properties as Record<string, { title: string }>;
  switch (reason.kind) {
    case 'missing':
      return `Enter your ${titles[field]?.title.toLowerCase() ?? field}`;
    case 'termsNotAccepted':
      return 'Accept the terms to continue';
    case 'placeMissing':
      return 'Enter your place of birth or your place of residence';
    case 'notAField':
      return 'is not a field of this form';
    case 'notADate':
      return 'Enter a real date as YYYY-MM-DD';
    case 'dateNotPast':
      return 'A date of birth must be in the past';
    case 'tooLong':
      return `Use at most ${reason.limit} characters`;
    case 'wrongType':
      return `must be a ${reason.type}`;
    case 'invalid':
      return reason.message;
  }
}

/** Checks buyer data (already normalised: trimmed, empty answers left out) against the schema of `now`. */
export function validateBuyerData(data: Record<string, unknown>, now: Date): BuyerDataResult {
  const schema = buyerDataSchema(now);
  const validate = validatorFor(schema);
  if (validate(data)) return { ok: true, data: data as BuyerData };
  const reasons = new Map<string, BuyerDataReason>();
  for (const error of validate.errors ?? []) {
    const found = reasonOf(error);
    if (found && !reasons.has(found[0])) reasons.set(found[0], found[1]);
  }
  const problems: BuyerDataProblems = new Map(
    [...reasons].map(([field, reason]) => [field, englishProblem(field, reason, schema)]),
  );
  return { ok: false, problems, reasons };
}

/** A text answer as given, trimmed; an empty answer counts as not given. */
function normalised(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * `collectedData.fields` (`[{id, value}]`) as an object; an id given twice is a problem of its own, as the schema
 * cannot tell which answer was meant.
 */
export function buyerDataFromFields(fields: { id: string; value: unknown }[]): {
  data: Record<string, unknown>;
  problems: BuyerDataProblems;
} {
  // No prototype: an id such as `__proto__` stays an ordinary (and refused) field.
  const data: Record<string, unknown> = Object.create(null);
  const problems: BuyerDataProblems = new Map();
  for (const { id, value } of fields) {
    if (Object.hasOwn(data, id)) problems.set(id, 'is given more than once');
    const answer = normalised(value);
    if (answer !== undefined) data[id] = answer;
  }
  return { data, problems };
}

/** The form page's fields (`application/x-www-form-urlencoded`); a ticked checkbox arrives as `on`. */
export function buyerDataFromForm(form: Record<string, unknown>): Record<string, unknown> {
  const schema = buyerDataSchema(new Date(0));
  const data: Record<string, unknown> = {};
  for (const [id, property] of Object.entries(schema.properties)) {
    const raw = form[id];
    if (raw === undefined) continue;
    if (property.type === 'boolean') {
      data[id] = raw === 'on' || raw === 'true' || raw === true;
    } else {
      const answer = normalised(raw);
      if (answer !== undefined) data[id] = answer;
    }
  }
  return data;
}
