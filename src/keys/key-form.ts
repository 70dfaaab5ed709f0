/**
 * The set of Redis keys a limit can write, known at start-up: its literal texts, laid out
 * like a template's, with a request value (a template's `#{expr}`, the client IP, the user
 * id) between each two. A value stands for any non-empty text, since a missing or empty
 * value is refused. A constant key is a form of one literal.
 */
export type KeyForm = readonly string[];

const ONE = 1; // exactly one character, whatever it is
const MANY = 2; // zero or more characters
type Token = string | typeof ONE | typeof MANY;

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
    else if (p[i] === MANY) result = match(i + 1, j) || (j < q.length && match(i, j + 1));
    else if (q[j] === MANY) result = match(i, j + 1) || (i < p.length && match(i + 1, j));
    else if (i < p.length && j < q.length && (p[i] === ONE || q[j] === ONE || p[i] === q[j])) {
      result = match(i + 1, j + 1);
    }
    seen.set(id, result);
    return result;
  };
  return match(0, 0);
}
