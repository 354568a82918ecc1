/**
 * A message that depends on a count: a text for each plural category the language has (`Intl.PluralRules`), so a
 * translation can say "1 minute" and "2 minutes" (or "1 minuto", "2 minutos", "1 million de minutes") rightly.
 */
export type PluralMessage = { readonly other: string } & {
  readonly [category in Exclude<Intl.LDMLPluralRule, 'other'>]?: string;
};

/** A catalogue entry: a text with `{name}` placeholders, or one text per plural category of `{count}`. */
export type Message = string | PluralMessage;
