/**
 * A short name of the options a bucket's state is written under, stored beside it in the key
 * (`<moment>~<fingerprint>`): a state whose fingerprint is not the current options' was
 * written under others (a restart with a corrected rate, a tenant's new plan), and is cut to
 * the current ones at its next decision. Only a state written under the same options keeps
 * what they allow, such as a settled debt. The same options give the same name in every
 * process (FNV-1a of their exact strings, in base 36); a collision would only keep a state
 * uncut, as before fingerprints.
 */
function optionsFingerprint(fields: readonly string[]): string {
  let hash = 0x811c9dc5;
  const text = fields.join('/');
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

const made = new WeakMap<object, string[]>();

/**
 * A bucket's argv: its parameters' `fields`, then their fingerprint, made once per params
 * object and frozen (what reads it never writes it; the twin reads the fingerprint on every
 * decision, {@link fingerprintOf}).
 */
export function withFingerprint<P extends object>(
  params: P,
  fields: (params: P) => string[],
): string[] {
  let argv = made.get(params);
  if (argv === undefined) {
    const own = fields(params);
    made.set(params, (argv = Object.freeze([...own, optionsFingerprint(own)]) as string[]));
  }
  return argv;
}

/** The fingerprint of `params` (the last of {@link withFingerprint}'s argv). */
export function fingerprintOf<P extends object>(
  params: P,
  fields: (params: P) => string[],
): string {
  const argv = withFingerprint(params, fields);
  return argv[argv.length - 1];
}
