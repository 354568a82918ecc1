/** The earliest date of birth accepted: anything before is a typing slip, not a buyer. */
const EARLIEST_BIRTH_DATE = '1900-01-01';

export type BuyerDataSchema = ReturnType<typeof buyerDataSchema>;

/**
 * The JSON Schema of the buyer data asked for above a threshold (D14): the same document is sent to wallets as
 * `collectData.schema`, rendered by the form page and used to validate both the form and `collectedData`. The
 * date of birth must be in the past, so the schema names today's date (UTC) as its latest value.
 */
export function buyerDataSchema(now: Date) {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Buyer details',
    description:
      'Asked by the merchant before a payment of this size. Give your place of birth, your place of residence, or both.',
    type: 'object',
    properties: {
      fullName: {
        type: 'string',
        title: 'Full name',
        description: 'As on your identity document',
        minLength: 1,
        maxLength: 200,
      },
      dateOfBirth: {
        type: 'string',
        title: 'Date of birth',
        description: 'YYYY-MM-DD',
        format: 'date',
        formatMinimum: EARLIEST_BIRTH_DATE,
        formatMaximum: now.toISOString().slice(0, 10),
      },
      placeOfBirth: {
        type: 'string',
        title: 'Place of birth',
        description: 'City and country',
        minLength: 1,
        maxLength: 200,
      },
      placeOfResidence: {
        type: 'string',
        title: 'Place of residence',
        description: 'City and country',
        minLength: 1,
        maxLength: 200,
      },
      termsAccepted: {
        type: 'boolean',
        const: true,
        title: 'I accept the terms of this payment',
        description: 'These details are shared with the merchant for this payment only',
      },
    },
    required: ['fullName', 'dateOfBirth', 'termsAccepted'],
    anyOf: [{ required: ['placeOfBirth'] }, { required: ['placeOfResidence'] }],
    additionalProperties: false,
  } as const;
}

export type BuyerDataFieldId = keyof BuyerDataSchema['properties'];

/** The fields of either place, one of which is required. */
export const PLACE_FIELDS: readonly BuyerDataFieldId[] = ['placeOfBirth', 'placeOfResidence'];

/** A field of the buyer data as WalletConnect Pay's deprecated `collectData.fields` lists it. */
export interface CollectDataField {
  id: BuyerDataFieldId;
  name: string;
  type: 'text' | 'date' | 'checkbox';
  required: boolean;
}

/**
 * The schema's fields as a list, for wallets that still read `collectData.fields`: a place is not required on its
 * own, since either one is enough (the schema's `anyOf`).
 */
export function collectDataFields(schema: BuyerDataSchema): CollectDataField[] {
  const required: readonly string[] = schema.required;
  return Object.entries(schema.properties).map(([id, property]) => ({
    id: id as BuyerDataFieldId,
    name: property.title,
    type:
      property.type === 'boolean' ? 'checkbox' : 'format' in property && property.format === 'date' ? 'date' : 'text',
    required: required.includes(id),
  }));
}
