import { DERIVED_KEY_MARKER } from './key-builder';

/**
 * The set of Redis keys a limit can write, known at start-up: its literal texts, laid out
 * like a template's, with a request value (a template's `#{expr}`, the client IP, the user
 * id) between each two. A value stands for any non-empty text without the derived-key
 * marker: a missing or empty value is refused, and values are escaped. A constant key is a
 * form of one literal. A part longer than 256 characters is hashed (`boundKeyPart`): a limit
 * whose values can be long has a second form for those keys, its base then `%#<kind>:`.
 */
export type KeyForm = readonly string[];

const ONE = 1; // exactly one character of a value
const MANY = 2; // zero or more characters of a value
type Token = string | typeof ONE | typeof MANY;

/** Whether a value's character may stand where `token` does. */
const takes = (token: Token): boolean => token !== DERIVED_KEY_MARKER;

/** Whether one key character can match both tokens (neither is MANY). */
function agree(a: Token, b: Token): boolean {
  if (a === ONE) return takes(b);
  if (b === ONE) return takes(a);
  return a === b;
}

/** Spells a form for messages: `countLimit:sms:*`. */
export function describeKeyForm(form: KeyForm): string {
  return form.join('*');
}

function tokensOf(form: KeyForm): Token[] {
  const tokens: Token[] = [];
  form.forEach((literal, i) => {
    if (i > 0) tokens.push(ONE, MANY);
    for (const char of literal) tokens.push(char);
  });
  return tokens;
}

/**
 * Whether some key belongs to both forms: a walk over both at once, where a wildcard may
 * take any run of the other's characters or wildcards (the intersection of two patterns,
 * O(length²) with memo, after a cheap check of the literal prefixes).
 */
export function keyFormsOverlap(a: KeyForm, b: KeyForm): boolean {
  const prefixA = a[0];
  const prefixB = b[0];
  const shorter = Math.min(prefixA.length, prefixB.length);
  if (prefixA.slice(0, shorter) !== prefixB.slice(0, shorter)) return false;

  const p = tokensOf(a);
  const q = tokensOf(b);
  const seen = new Map<number, boolean>();
  const match = (i: number, j: number): boolean => {
    const id = i * (q.length + 1) + j;
    const known = seen.get(id);
    if (known !== undefined) return known;
    let result = false;
    if (i === p.length && j === q.length) result = true;
    else if (p[i] === MANY)
      result = match(i + 1, j) || (j < q.length && takes(q[j]) && match(i, j + 1));
    else if (q[j] === MANY)
      result = match(i, j + 1) || (i < p.length && takes(p[i]) && match(i + 1, j));
    else if (i < p.length && j < q.length && agree(p[i], q[j])) result = match(i + 1, j + 1);
    seen.set(id, result);
    return result;
  };
  return match(0, 0);
}
