import type { en } from './en.ts';
import type { PluralMessage } from './message.ts';

type English = typeof en;

export type MessageKey = keyof English;

/** A language's messages: every key of the English catalogue, a plural message where the English one is plural. */
export type Catalogue = { readonly [K in MessageKey]: English[K] extends string ? string : PluralMessage };

type PlaceholdersIn<Text> = Text extends `${string}{${infer Name}}${infer Rest}` ? Name | PlaceholdersIn<Rest> : never;

type TextsOf<M> = M extends string ? M : M[keyof M];

/** The placeholders of a message, as its English text names them. */
export type PlaceholderOf<K extends MessageKey> = PlaceholdersIn<TextsOf<English[K]>>;

/**
 * What a message's placeholders are filled with: a value per placeholder (numbers are formatted for the locale),
 * `count` a number for a plural message; nothing for a message without placeholders.
 */
export type ValuesFor<K extends MessageKey, Value> = [PlaceholderOf<K>] extends [never]
  ? []
  : [values: { readonly [Name in PlaceholderOf<K>]: Name extends 'count' ? number : Value }];

/** The keys of messages without placeholders, which are said as they are. */
export type PlainMessageKey = { [K in MessageKey]: [PlaceholderOf<K>] extends [never] ? K : never }[MessageKey];
