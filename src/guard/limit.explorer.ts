import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { isSkipped, readLimits } from '../decorators/limit-metadata.accessor';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { LimitDefinition } from '../decorators/limit-definition';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { describeKeyForm, KeyForm, keyFormsOverlap } from '../keys/key-form';
import { limiterMessages } from '../rate-limiter.messages';
import { compileLimit, defaultNameOf, keySpecOf, PlannedLimit } from './compiled-limit';

/**
 * A handler's compiled limits. `dynamic` says the guard needs the request's
 * `LimitContext` (a `skip` predicate or an option that is a function somewhere); a plan
 * without it does no more work per request than one before those existed.
 */
export interface LimitPlan extends ReadonlyArray<PlannedLimit> {
  readonly dynamic: boolean;
  readonly hasShadow: boolean;
}

const NO_LIMITS: LimitPlan = Object.freeze(Object.assign([], { dynamic: false, hasShadow: false }));

/**
 * Compiles every decorated handler once, when the application initialises: options are
 * validated and key templates parsed there, so a mistake fails start-up naming the class,
 * method and option, and the guard does two map lookups per request. Plans are kept per
 * controller and handler: a method inherited by two controllers gets each one's class limits
 * and key names.
 */
@Injectable()
export class LimitExplorer implements OnModuleInit {
  private readonly plans = new Map<Function, Map<Function, LimitPlan>>();
  private readonly logger = new Logger('RateLimiter');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(RATE_LIMITER_OPTIONS) private readonly options: RateLimiterModuleOptions,
  ) {}

  onModuleInit(): void {
    const wrappers = [...this.discovery.getControllers(), ...this.discovery.getProviders()];
    for (const wrapper of wrappers) {
      const { metatype, instance } = wrapper;
      if (!instance || typeof metatype !== 'function' || !metatype.prototype) continue;
      const prototype = Object.getPrototypeOf(instance);
      if (!prototype) continue;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler === 'function' && !this.plans.get(metatype)?.has(handler)) {
          this.compile(metatype, handler, name);
        }
      }
    }
    this.refuseSharedKeys();
  }

  /**
   * Two limits of different kinds on one key would each find the other's state (a zset where
   * a counter should be: every decision fails, and fails open). Same-kind limits may share a
   * key on purpose (one budget for several routes).
   */
  private refuseSharedKeys(): void {
    const limits: PlannedLimit[] = [];
    for (const byHandler of this.plans.values()) {
      for (const plan of byHandler.values()) limits.push(...plan);
    }
    for (let i = 0; i < limits.length; i++) {
      for (let j = i + 1; j < limits.length; j++) {
        const [a, b] = [limits[i], limits[j]];
        if (a.kind === b.kind) continue;
        for (const formA of keyFormsOf(a)) {
          const formB = keyFormsOf(b).find((form) => keyFormsOverlap(formA, form));
          if (!formB) continue;
          throw new LimiterConfigError(
            limiterMessages.sharedKey(
              a.where,
              describeKeyForm(formA),
              b.where,
              describeKeyForm(formB),
            ),
          );
        }
      }
    }
  }

  /** The compiled limits of a handler; one that was not discovered is compiled on first use. */
  limitsFor(controller: Function, handler: Function): LimitPlan {
    return (
      this.plans.get(controller)?.get(handler) ?? this.compile(controller, handler, handler.name)
    );
  }

  private compile(controller: Function, handler: Function, methodName: string): LimitPlan {
    const definitions = readLimits(controller, handler);
    const plan =
      definitions.length === 0 || isSkipped(controller, handler)
        ? NO_LIMITS
        : this.planOf(this.compileAll(definitions, `${controller.name}.${methodName}`));
    let byHandler = this.plans.get(controller);
    if (!byHandler) this.plans.set(controller, (byHandler = new Map()));
    byHandler.set(handler, plan);
    return plan;
  }

  private planOf(limits: PlannedLimit[]): LimitPlan {
    return Object.freeze(
      Object.assign(limits, {
        dynamic:
          this.options.skip !== undefined || limits.some((limit) => limit.skip || limit.resolve),
        hasShadow: limits.some((limit) => limit.shadow),
      }),
    );
  }

  private compileAll(definitions: LimitDefinition[], handlerName: string): PlannedLimit[] {
    const occurrences = new Map<string, number>();
    const names = uniqueNames(definitions, handlerName);
    return definitions.map((definition, index) => {
      const spec = keySpecOf(definition);
      const occurrence = (occurrences.get(spec) ?? 0) + 1;
      occurrences.set(spec, occurrence);
      return Object.freeze(
        compileLimit(
          definition,
          handlerName,
          this.options.keyPrefix ?? '',
          occurrence,
          (message) => this.logger.warn(message),
          this.options.shadow ?? false,
          names[index],
        ),
      );
    });
  }
}

/** A limit's key forms: its keys as built, and those whose long value was hashed. */
function keyFormsOf(limit: PlannedLimit): KeyForm[] {
  return limit.hashedKeyForm ? [limit.keyForm, limit.hashedKeyForm] : [limit.keyForm];
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
