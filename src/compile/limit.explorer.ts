import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { readLimits } from '../decorators/limit-metadata.accessor';
import { defaultDefinitions } from './default-limits';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { LimitDefinition } from '../contracts/limit-definition';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { describeKeyForm, KeyForm, keyFormsOverlap } from '../keys/key-form';
import { limiterMessages } from '../rate-limiter.messages';
import { PlannedLimit } from './compiled-limit';
import { HandlerCompile, handlerLimits } from './handler-definitions';
import { checkOverrides, LimitOverrides } from './limit-overrides';
import { isConnectionHandler } from './connection-handler';

/**
 * A handler's compiled limits. `dynamic` says the guard needs the request's
 * `LimitContext` (a `skip` predicate or an option that is a function somewhere); a plan
 * without it does no more work per request than one before those existed.
 */
export interface LimitPlan extends ReadonlyArray<PlannedLimit> {
  readonly dynamic: boolean;
  readonly hasShadow: boolean;
  /** Some key depends on the user: decided after the app's own guards (RateLimitInterceptor decides them). */
  readonly readsUser: boolean;
  /** Some limit has work after the guard (see PlannedLimit's `afterHandler`). */
  readonly afterHandler: boolean;
}

const NO_LIMITS: LimitPlan = Object.freeze(
  Object.assign([], {
    dynamic: false,
    hasShadow: false,
    readsUser: false,
    afterHandler: false,
  }),
);

/** Where a handler's limits are its own only: a class with no limits. */
const NO_CLASS = Object.freeze({});

/**
 * Compiles every controller handler and every decorated provider method (resolvers,
 * gateways) once, when the application initialises: options are
 * validated and key templates parsed there, so a mistake fails start-up naming the class,
 * method and option, and the guard does two map lookups per request. Plans are kept per
 * controller and handler: a method inherited by two controllers gets each one's class limits
 * and key names.
 */
@Injectable()
export class LimitExplorer implements OnModuleInit {
  private plans = new Map<Function, Map<Function, LimitPlan>>();
  private overrides: LimitOverrides = new Map();
  /** Every handler with limits, so overrides can compile them again. */
  private readonly handlers: { controller: Function; handler: Function; methodName: string }[] = [];
  private readonly logger = new Logger('RateLimiter');
  /** Limits whose units were looked at: a class's limit is checked once, not per handler. */
  private readonly unitsChecked = new WeakSet<LimitDefinition>();

  private readonly defaults: readonly LimitDefinition[];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(RATE_LIMITER_OPTIONS) private readonly options: RateLimiterModuleOptions,
  ) {
    this.defaults = defaultDefinitions(options.defaults, 'RateLimiterModule');
  }

  onModuleInit(): void {
    const controllers = new Set(this.discovery.getControllers());
    for (const wrapper of [...controllers, ...this.discovery.getProviders()]) {
      const { metatype, instance } = wrapper;
      if (!instance || typeof metatype !== 'function' || !metatype.prototype) continue;
      const prototype = Object.getPrototypeOf(instance);
      if (!prototype) continue;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function' || this.plans.get(metatype)?.has(handler)) continue;
        // A provider's undecorated method (a service's, mostly) has only the defaults: it is
        // planned on first use, if a resolver or gateway method ever is one.
        if (!controllers.has(wrapper) && readLimits(metatype, handler).length === 0) continue;
        this.compile(metatype, handler, name);
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
    const limits = this.allLimits();
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

  /** Every limit of every handler compiled so far, overrides applied. */
  allLimits(): PlannedLimit[] {
    const limits: PlannedLimit[] = [];
    for (const byHandler of this.plans.values()) {
      for (const plan of byHandler.values()) limits.push(...plan);
    }
    return limits;
  }

  /**
   * Replaces the live overrides (options by limit name) and compiles every plan again with
   * them; requests decided from then on use the new plans. An override no limit accepts
   * (a limit of 0) throws a LimiterConfigError naming it, and nothing changes. With
   * `dryRun`, nothing changes either way: the overrides are only checked.
   */
  applyOverrides(overrides: LimitOverrides, dryRun = false): void {
    checkOverrides(overrides);
    const [previousPlans, previousOverrides] = [this.plans, this.overrides];
    this.plans = new Map(
      [...previousPlans].map(([controller, byHandler]) => [controller, new Map(byHandler)]),
    );
    this.overrides = overrides;
    try {
      for (const { controller, handler, methodName } of this.handlers) {
        this.compile(controller, handler, methodName, false);
      }
    } catch (error) {
      [this.plans, this.overrides] = [previousPlans, previousOverrides];
      throw error;
    }
    if (dryRun) [this.plans, this.overrides] = [previousPlans, previousOverrides];
  }

  /**
   * Whether the handler's limits have work after the guard, asked before plans are compiled
   * (discovery/interceptor-binding.ts): compiled quietly, as a throwaway; a mistake is left to
   * `onModuleInit`, which fails start-up naming it.
   */
  needsAfterHandler(controller: Function, handler: Function, methodName: string): boolean {
    try {
      const limits = this.compileHandler(controller, handler, methodName, true);
      return limits.some((limit) => limit.afterHandler);
    } catch {
      return false;
    }
  }

  /** The compiled limits of a handler; one that was not discovered is compiled on first use. */
  limitsFor(controller: Function, handler: Function): LimitPlan {
    return (
      this.plans.get(controller)?.get(handler) ?? this.compile(controller, handler, handler.name)
    );
  }

  private compile(
    controller: Function,
    handler: Function,
    methodName: string,
    firstTime = true,
  ): LimitPlan {
    const limits = this.compileHandler(controller, handler, methodName);
    if (firstTime && limits.length > 0) this.handlers.push({ controller, handler, methodName });
    const plan = limits.length === 0 ? NO_LIMITS : this.planOf(limits);
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
        readsUser: limits.some((limit) => limit.readsUser),
        afterHandler: limits.some((limit) => limit.afterHandler),
      }),
    );
  }

  /** A handler's limits (handler-definitions.ts), compiled with the live overrides. */
  private compileHandler(
    controller: Function,
    handler: Function,
    methodName: string,
    /** A throwaway compile: nothing said, nothing remembered. */
    quiet = false,
  ): PlannedLimit[] {
    const settings: HandlerCompile = {
      overrides: this.overrides,
      keyPrefix: this.options.keyPrefix ?? '',
      shadowByDefault: this.options.shadow ?? false,
      warn: quiet ? undefined : (message) => this.logger.warn(message),
      unitsChecked: this.unitsChecked,
      strictDurations: this.options.strictDurations === true,
    };
    const handlerName = `${controller.name}.${methodName}`;
    if (isConnectionHandler(controller, methodName)) {
      return handlerLimits([], NO_CLASS, handler, handlerName, settings);
    }
    return handlerLimits(this.defaults, controller, handler, handlerName, settings);
  }
}

/** A limit's key forms: its keys as built, and those whose long value was hashed. */
function keyFormsOf(limit: PlannedLimit): KeyForm[] {
  return limit.hashedKeyForm ? [limit.keyForm, limit.hashedKeyForm] : [limit.keyForm];
}
