import { LimitDefinition } from '../contracts/limit-definition';
import { kindOf, settles } from './compiled-limit';

/** What any limit shares with the one it replaces, whatever the two algorithms. */
const SHARED_OPTIONS = ['skip', 'shadow', 'permits', 'settle'];
/** Where the key comes from: inherited together, or not at all (`key` alone means CUSTOM). */
const KEY_OPTIONS = ['limitType', 'key'];
/** Options that size the same thing: one given by a replacement or override drops the others. */
const ALTERNATIVES = [['burst', 'capacity']];

const merged = new WeakMap<LimitDefinition, WeakMap<LimitDefinition, LimitDefinition>>();

/**
 * A limit named like the one it replaces (a default, or a class-level limit), with every
 * option it does not set taken from that one, key included: `@CountLimit({ name: 'short',
 * limit: 10, period: 1 })` over an IP default stays per IP. Of another algorithm, it takes
 * only the key and the options every limit has (`settle` where it can settle). The same
 * pair gives the same object, so a class-level limit stays one limit across its handlers.
 */
export function replacing(
  replacement: LimitDefinition,
  replaced: LimitDefinition,
): LimitDefinition {
  let byReplaced = merged.get(replacement);
  if (!byReplaced) merged.set(replacement, (byReplaced = new WeakMap()));
  let definition = byReplaced.get(replaced);
  if (!definition) byReplaced.set(replaced, (definition = inherit(replacement, replaced)));
  return definition;
}

function inherit(replacement: LimitDefinition, replaced: LimitDefinition): LimitDefinition {
  const own = replacement.options;
  const given = (option: string) => own[option] !== undefined;
  const sameAlgorithm = replacement.kind === replaced.kind;
  // A concurrency slot cannot settle: it would fail start-up over an option it was not given.
  const refused = settles(kindOf(replacement)) ? undefined : 'settle';
  const inherited: Record<string, unknown> = {};
  for (const [option, value] of Object.entries(replaced.options)) {
    if (option === 'name' || option === refused || given(option)) continue;
    if (KEY_OPTIONS.includes(option)) {
      if (!KEY_OPTIONS.some(given)) inherited[option] = value;
    } else if (SHARED_OPTIONS.includes(option) || sameAlgorithm) {
      if (!rivalled(option, own)) inherited[option] = value;
    }
  }
  return Object.freeze({ ...replacement, options: { ...inherited, ...own } });
}

/** Whether `option` sizes what an option of `own` already sizes (`capacity` for `burst`). */
function rivalled(option: string, own: Readonly<Record<string, unknown>>): boolean {
  const rivals = ALTERNATIVES.find((group) => group.includes(option));
  return !!rivals?.some((rival) => own[rival] !== undefined);
}

/**
 * The options of `declared` with a live override's on top (the admin's): an override of
 * `burst` replaces a declared `capacity`, as a replacement's would, instead of joining it.
 */
export function overridden(
  declared: LimitDefinition,
  override: Readonly<Record<string, unknown>>,
): LimitDefinition {
  const options: Record<string, unknown> = {};
  for (const [option, value] of Object.entries(declared.options)) {
    if (!rivalled(option, override)) options[option] = value;
  }
  return { ...declared, options: { ...options, ...override } as LimitDefinition['options'] };
}
