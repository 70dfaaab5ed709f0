/** The character codes a packed reply's values are read by (packing.ts unpackReply). */
const COMMA = 44;
const MINUS = 45;
const ZERO = 48;
const END_CODE = 0;

/** Digits beyond which an integer read digit by digit could pass 2^53 and round. */
const MAX_EXACT_DIGITS = 15;

/**
 * Reads the numbers of a packed reply in one pass, each as its characters go by: a plain
 * integer (every value of a usual reply) makes no string of its own, anything else is read
 * as `Number` reads it.
 */
export class ReplyFields {
  /** Where the next field starts. */
  at = 0;

  constructor(readonly text: string) {}

  /**
   * The number from {@link at} to the next `','` (`last`: to the next NUL, which ends the
   * entry), {@link at} moved past it; undefined where the entry or the text ends first.
   */
  number(last: boolean): number | undefined {
    const { text } = this;
    const from = this.at;
    const delimiter = last ? END_CODE : COMMA;
    let i = from;
    const negative = text.charCodeAt(i) === MINUS;
    if (negative) i++;
    const digitsFrom = i;
    let value = 0;
    let plain = true;
    for (; ; i++) {
      const code = text.charCodeAt(i);
      if (code === delimiter) break;
      // The entry's end before its last field, or the text's (NaN).
      if (code === END_CODE || code !== code) return undefined;
      const digit = code - ZERO;
      if (digit >= 0 && digit <= 9) value = value * 10 + digit;
      else plain = false;
    }
    this.at = i + 1;
    const digits = i - digitsFrom;
    if (!plain || digits === 0 || digits > MAX_EXACT_DIGITS) return Number(text.slice(from, i));
    return negative ? -value : value;
  }
}
