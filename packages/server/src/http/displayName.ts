import { Type } from '@sinclair/typebox';
import { ApiError } from './errors.ts';

/** Longest name, in characters (code points), counted after trimming. */
export const DISPLAY_NAME_MAX_LENGTH = 256;

/** A name as requests carry it: the raw bound only caps the work, the rule applies the real one to the trimmed name. */
export const DisplayName = Type.String({
  minLength: 1,
  maxLength: 4 * DISPLAY_NAME_MAX_LENGTH,
  description: `1 to ${DISPLAY_NAME_MAX_LENGTH} characters once surrounding white space is trimmed (it is stored trimmed), at least one of them visible; no control, invisible or bidirectional control characters`,
});

const SURROUNDING_WHITE_SPACE = /^\p{White_Space}+|\p{White_Space}+$/gu;

/**
 * A character that shows: not white space or a separator, not default-ignorable (fillers such as U+3164 and tag
 * characters included), not a mark (drawn only on another character), not a format or control character. U+2800,
 * the Braille pattern with no dots, is a symbol drawn as nothing that no Unicode property sets apart.
 */
const VISIBLE_CHARACTER = /[^\p{White_Space}\p{Z}\p{Default_Ignorable_Code_Point}\p{M}\p{Cf}\p{Cc}\u2800]/u;

/** Characters that reorder the text around them: a name could read differently from what it is (Trojan Source). */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/**
 * Characters a reader cannot see or that break the line: C0 and C1 controls (category Cc), zero-width space, joiners and
 * word joiner, invisible operators, the byte-order mark, line and paragraph separators. A name with one of them could
 * look like another's.
 */
const INVISIBLE_OR_CONTROL = /[\p{Cc}\u200B-\u200D\u2028\u2029\u2060-\u2064\uFEFF]/u;

function codePointLabel(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The name without surrounding white space (Unicode White_Space, so a byte-order mark is not trimmed but refused). */
export function trimmedDisplayName(name: string): string {
  return name.replace(SURROUNDING_WHITE_SPACE, '');
}

/**
 * Why `name` cannot be a name the service shows to others (a merchant's, a partner's, a wallet app's) once trimmed,
 * or undefined when it can: one that shows nothing, or reads as another, would let its owner pass for someone else.
 */
export function displayNameProblem(name: string): string | undefined {
  const trimmed = trimmedDisplayName(name);
  if (trimmed === '') return 'must not be blank';
  if (!VISIBLE_CHARACTER.test(trimmed)) {
    return 'must have a visible character, not only white space, marks, fillers or invisible characters';
  }
  const bidi = BIDI_CONTROLS.exec(trimmed);
  if (bidi) return `must not contain bidirectional control characters (found ${codePointLabel(bidi[0])})`;
  const invisible = INVISIBLE_OR_CONTROL.exec(trimmed);
  if (invisible) return `must not contain invisible or control characters (found ${codePointLabel(invisible[0])})`;
  const length = [...trimmed].length;
  if (length > DISPLAY_NAME_MAX_LENGTH) {
    return `must be at most ${DISPLAY_NAME_MAX_LENGTH} characters once surrounding white space is trimmed (it has ${length})`;
  }
  return undefined;
}

/** The name as stored: trimmed; a name the rule refuses is a 400 `params_validation` on `field`. */
export function displayNameToStore(name: string, field: string): string {
  const problem = displayNameProblem(name);
  if (problem) throw ApiError.validation([{ field, message: problem }]);
  return trimmedDisplayName(name);
}
