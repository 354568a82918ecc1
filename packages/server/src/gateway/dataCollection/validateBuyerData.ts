import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { type BuyerDataSchema, buyerDataSchema, PLACE_FIELDS } from './buyerDataSchema.ts';

/** Buyer data that passed the schema: field id to value. */
export type BuyerData = Record<string, string | boolean>;

/** Per field id, what is wrong with it, in words a buyer can act on. */
export type BuyerDataProblems = Map<string, string>;

export type BuyerDataResult = { ok: true; data: BuyerData } | { ok: false; problems: BuyerDataProblems };

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);

// The schema changes once a day (its latest date of birth); one compiled validator per day is kept.
let compiled: { day: string; validate: ValidateFunction } | undefined;

function validatorFor(schema: BuyerDataSchema): ValidateFunction {
  const day = schema.properties.dateOfBirth.formatMaximum;
  if (compiled?.day !== day) compiled = { day, validate: ajv.compile(schema) };
  return compiled.validate;
}

function problemOf(error: ErrorObject, schema: BuyerDataSchema): [string, string] | undefined {
  const titles = schema.properties as Record<string, { title: string }>;
  const field = error.instancePath.split('/').filter(Boolean)[0];
  switch (error.keyword) {
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      // The anyOf branches report each place as required: one message for the pair is given below.
      if (PLACE_FIELDS.includes(missing as (typeof PLACE_FIELDS)[number])) return undefined;
      return [
        missing,
        missing === 'termsAccepted'
          ? 'Accept the terms to continue'
          : `Enter your ${titles[missing]?.title.toLowerCase() ?? missing}`,
      ];
    }
    case 'anyOf':
      return ['placeOfBirth', 'Enter your place of birth or your place of residence'];
    case 'additionalProperties':
      return [(error.params as { additionalProperty: string }).additionalProperty, 'is not a field of this form'];
    case 'format':
    case 'formatMinimum':
      return [field ?? '', 'Enter a real date as YYYY-MM-DD'];
    case 'formatMaximum':
      return [field ?? '', 'A date of birth must be in the past'];
    case 'const':
      return [field ?? '', 'Accept the terms to continue'];
    case 'maxLength':
      return [field ?? '', `Use at most ${(error.params as { limit: number }).limit} characters`];
    case 'type':
      return [field ?? '', `must be a ${(error.params as { type: string }).type}`];
    default:
      return [field ?? '', error.message ?? 'is not valid'];
  }
}

/** Checks buyer data (already normalised: trimmed, empty answers left out) against the schema of `now`. */
export function validateBuyerData(data: Record<string, unknown>, now: Date): BuyerDataResult {
  const schema = buyerDataSchema(now);
  const validate = validatorFor(schema);
  if (validate(data)) return { ok: true, data: data as BuyerData };
  const problems: BuyerDataProblems = new Map();
  for (const error of validate.errors ?? []) {
    const problem = problemOf(error, schema);
    if (problem && !problems.has(problem[0])) problems.set(problem[0], problem[1]);
  }
  return { ok: false, problems };
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
