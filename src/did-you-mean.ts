/**
 * The known name closest to a mistyped one, for "did you mean" in start-up errors; undefined
 * when none is close. Case is ignored (`KeyPrefix`), a few edits are allowed (`limt`,
 * `perod`, `shrot`), and so is a name the other contains (`prefix` for `keyPrefix`, `timeout`
 * for `storeTimeout`).
 */
export function didYouMean(
  input: string,
  known: readonly string[],
  /** False where a longer name holding a known one is a name of its own (`userInfo`). */
  containment = true,
): string | undefined {
  const typed = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const candidate = name.toLowerCase();
    const distance = editDistance(typed, candidate);
    const close = distance <= Math.max(1, Math.floor(Math.max(typed.length, candidate.length) / 3));
    const contained =
      containment &&
      Math.min(typed.length, candidate.length) >= 4 &&
      (candidate.includes(typed) || typed.includes(candidate));
    if ((close || contained) && distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Edits between two names: insertions, deletions, substitutions, and swaps of two adjacent
 * letters (`shrot`), the commonest slip of a typist, as one edit (optimal string alignment).
 */
function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        current[j] = Math.min(current[j], beforePrevious[j - 2] + 1);
      }
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length];
}
