import { LimitDefinition } from '../contracts/limit-definition';
import { readClassLimits, readMethodLimits, readSkip } from '../decorators/limit-metadata.accessor';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import { compileLimit, defaultNameOf, keySpecOf, kindOf, PlannedLimit } from './compiled-limit';
import { durationOfMilliseconds, millisecondsSuspects } from '../algorithms/duration';
import { LimitOverrides } from './limit-overrides';
import { overridden, replacing } from './replaced-limit';
import { didYouMean } from '../did-you-mean';

/** A handler's limits before compiling, each with its name. */
export interface NamedDefinitions {
  definitions: LimitDefinition[];
  names: string[];
}

const NONE: NamedDefinitions = { definitions: [], names: [] };

/**
 * The limits that apply to a handler, in order (defaults, class, method), with their names:
 * - a decorator named like a default or a class-level limit replaces it (the method's
 *   beats the class's, which beats the default), inheriting every option it does not set
 *   (replaced-limit.ts);
 * - `@SkipRateLimit()` drops everything; `@SkipRateLimit('a', ...)` on the class drops the
 *   defaults and class limits so named, on the method drops any limit so named.
 */
export function handlerDefinitions(
  defaults: readonly LimitDefinition[],
  controller: object,
  handler: object,
  handlerName: string,
): NamedDefinitions {
  const classSkip = readSkip(controller, false);
  const methodSkip = readSkip(handler, true);
  if (classSkip === true || methodSkip === true) return NONE;
  const onClass = readClassLimits(controller);
  const onMethod = readMethodLimits(handler);
  if (defaults.length + onClass.length + onMethod.length === 0) return NONE;
  const methodNames = givenNames(onMethod);
  const overridden = new Set([...methodNames, ...givenNames(onClass)]);
  // A replacement inherits what it does not set from the limit it replaces.
  const byName = new Map<unknown, LimitDefinition>();
  const replaced = (definitions: LimitDefinition[]) =>
    definitions.map((definition) => {
      const original = byName.get(definition.options.name);
      const effective = original ? replacing(definition, original) : definition;
      if (definition.options.name !== undefined) byName.set(definition.options.name, effective);
      return effective;
    });
  const effectiveDefaults = replaced([...defaults]);
  const effectiveClass = replaced(onClass);
  const effectiveMethod = replaced(onMethod);
  const levels: [LimitDefinition[], readonly string[] | undefined][] = [
    [effectiveDefaults.filter((d) => !overridden.has(d.options.name as string)), classSkip],
    [effectiveClass.filter((d) => !methodNames.has(d.options.name as string)), classSkip],
    [effectiveMethod, undefined],
  ];
  const all = levels.flatMap(([definitions]) => definitions);
  const allNames = uniqueNames(all, handlerName);
  checkSkippedNames([classSkip, methodSkip], allNames, handlerName);
  const result: NamedDefinitions = { definitions: [], names: [] };
  let index = 0;
  for (const [definitions, levelSkip] of levels) {
    for (const definition of definitions) {
      const name = allNames[index++];
      if (levelSkip?.includes(name) || methodSkip?.includes(name)) continue;
      result.definitions.push(definition);
      result.names.push(name);
    }
  }
  return result;
}

/** What compiling a handler's limits takes besides them: the module's settings. */
export interface HandlerCompile {
  /** Options of a limit, by its name, that replace its decorator's. */
  overrides: LimitOverrides;
  keyPrefix: string;
  shadowByDefault: boolean;
  /** Where warnings go; none for a throwaway compile (nothing said, nothing remembered). */
  warn?: (message: string) => void;
  /** Limits whose units were looked at: a class's limit is checked once, not per handler. */
  unitsChecked: WeakSet<LimitDefinition>;
  /** A bare time of 1,000 s or more fails the compile instead of warning (`strictDurations`). */
  strictDurations?: boolean;
}

/**
 * A handler's limits compiled (defaults, class, method; see {@link handlerDefinitions}),
 * overrides applied: where a decorator's options become what the guard runs.
 */
export function handlerLimits(
  defaults: readonly LimitDefinition[],
  controller: object,
  handler: object,
  handlerName: string,
  settings: HandlerCompile,
): PlannedLimit[] {
  const { definitions, names } = handlerDefinitions(defaults, controller, handler, handlerName);
  const { overrides, warn } = settings;
  const occurrences = new Map<string, number>();
  return definitions.map((declared, index) => {
    const override = overrides.get(names[index]);
    const definition = override ? overridden(declared, override) : declared;
    const spec = keySpecOf(definition);
    const occurrence = (occurrences.get(spec) ?? 0) + 1;
    occurrences.set(spec, occurrence);
    if (warn || settings.strictDurations) checkUnits(definition, handlerName, settings);
    return Object.freeze(
      compileLimit(
        definition,
        handlerName,
        settings.keyPrefix,
        occurrence,
        warn ?? (() => undefined),
        settings.shadowByDefault,
        names[index],
      ),
    );
  });
}

/**
 * `period: 60000` meant as a minute is 16.7 hours: said once per limit, at start-up, for every
 * time option given as a bare number from 1,000 up; with `strictDurations`, refused (a live
 * override's throwaway compile included, so the admin refuses it too).
 */
function checkUnits(definition: LimitDefinition, handlerName: string, settings: HandlerCompile) {
  const { unitsChecked, strictDurations, warn } = settings;
  if (!strictDurations && unitsChecked.has(definition)) return;
  unitsChecked.add(definition);
  const suspects = millisecondsSuspects(definition.options, kindOf(definition).durationOptions);
  const where = handlerName ? `${definition.decorator} on ${handlerName}` : definition.decorator;
  for (const { option, value } of suspects) {
    const readings = {
      milliseconds: durationOfMilliseconds(value),
      seconds: durationOfMilliseconds(value * 1000),
    };
    if (strictDurations) {
      throw new LimiterConfigError(limiterMessages.bareDuration(where, option, value, readings));
    }
    warn?.(limiterMessages.looksLikeMilliseconds(where, option, value, readings));
  }
}

/**
 * Refuses a skipped name that names no limit of the handler but is close to one
 * (`@SkipRateLimit('shrot')` next to a default `short`): it would skip nothing, silently.
 */
function checkSkippedNames(
  skips: (readonly string[] | boolean | undefined)[],
  names: readonly string[],
  handlerName: string,
): void {
  for (const skip of skips) {
    if (!Array.isArray(skip)) continue;
    for (const name of skip as readonly string[]) {
      if (names.includes(name)) continue;
      const near = didYouMean(name, names);
      if (near !== undefined) {
        throw new LimiterConfigError(limiterMessages.misspeltSkip(handlerName, name, near));
      }
    }
  }
}

function givenNames(definitions: readonly LimitDefinition[]): Set<string> {
  const names = new Set<string>();
  for (const { options } of definitions) {
    if (typeof options.name === 'string') names.add(options.name);
  }
  return names;
}

/**
 * Each limit's name on one handler: the decorator's `name`, else its prefix's (`countLimit`,
 * then `countLimit#2`…). A name given twice is refused: events, metrics and policies would
 * not tell the two apart.
 */
function uniqueNames(definitions: LimitDefinition[], handlerName: string): string[] {
  const given = new Set<unknown>();
  for (const { decorator, options } of definitions) {
    if (options.name === undefined) continue;
    if (given.has(options.name)) {
      throw new LimiterConfigError(
        limiterMessages.duplicateName(`${decorator} on ${handlerName}`, String(options.name)),
      );
    }
    given.add(options.name);
  }
  const used = new Set<unknown>(given);
  return definitions.map((definition) => {
    if (typeof definition.options.name === 'string') return definition.options.name;
    const base = defaultNameOf(definition);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}#${n}`;
    used.add(name);
    return name;
  });
}
