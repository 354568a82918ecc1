import { ApiError } from '../http/errors.ts';

/** Longest merchant name, in characters (code points), counted after trimming. */
export const MERCHANT_NAME_MAX_LENGTH = 256;

const SURROUNDING_WHITE_SPACE = /^\p{White_Space}+|\p{White_Space}+$/gu;

/** Characters that reorder the text around them: a name could read differently from what it is (Trojan Source). */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/**
 * Characters a buyer cannot see or that break the line: C0 and C1 controls (category Cc), zero-width space, joiners and word
 * joiner, invisible operators, the byte-order mark, line and paragraph separators. A name with one of them could
 * look like another merchant's name.
 */
const INVISIBLE_OR_CONTROL = /[\p{Cc}\u200B-\u200D\u2028\u2029\u2060-\u2064\uFEFF]/u;

function codePointLabel(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The name without surrounding white space (Unicode White_Space, so a byte-order mark is not trimmed but refused). */
export function trimmedMerchantName(name: string): string {
  return name.replace(SURROUNDING_WHITE_SPACE, '');
}

/** Why `name` cannot be a merchant name once trimmed, or undefined when it can. */
export function merchantNameProblem(name: string): string | undefined {
  const trimmed = trimmedMerchantName(name);
  if (trimmed === '') return 'must not be blank';
  const bidi = BIDI_CONTROLS.exec(trimmed);
  if (bidi) return `must not contain bidirectional control characters (found ${codePointLabel(bidi[0])})`;
  const invisible = INVISIBLE_OR_CONTROL.exec(trimmed);
  if (invisible) return `must not contain invisible or control characters (found ${codePointLabel(invisible[0])})`;
  const length = [...trimmed].length;
  if (length > MERCHANT_NAME_MAX_LENGTH) {
    return `must be at most ${MERCHANT_NAME_MAX_LENGTH} characters once surrounding white space is trimmed (it has ${length})`;
  }
  return undefined;
}

/** The name as stored: trimmed; a name the rule refuses is a 400 `params_validation` on `merchantName`. */
export function merchantNameToStore(name: string): string {
  const problem = merchantNameProblem(name);
  if (problem) throw ApiError.validation([{ field: 'merchantName', message: problem }]);
  return trimmedMerchantName(name);
}
