/**
 * A short name of the options a bucket's state is written under, stored beside it in the key
 * (`<moment>~<fingerprint>`): a state whose fingerprint is not the current options' was
 * written under others (a restart with a corrected rate, a tenant's new plan), and is cut to
 * the current ones at its next decision. Only a state written under the same options keeps
 * what they allow, such as a settled debt. The same options give the same name in every
 * process (FNV-1a of their exact strings, in base 36); a collision would only keep a state
 * uncut, as before fingerprints.
 */
export function optionsFingerprint(fields: readonly string[]): string {
  let hash = 0x811c9dc5;
  const text = fields.join('/');
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

const known = new WeakMap<object, string>();

/** The fingerprint of `params`, made once per params object by `make`. */
export function fingerprintOf<P extends object>(params: P, make: (params: P) => string): string {
  let fingerprint = known.get(params);
  if (fingerprint === undefined) known.set(params, (fingerprint = make(params)));
  return fingerprint;
}
