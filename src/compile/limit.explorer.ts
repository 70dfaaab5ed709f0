import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
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
import { isProviderHandler } from './provider-handler';
import { OverloadGates } from './overload-gates';
import { HandlerRoute, HandlerRoutes, LimitPlan } from './handler-routes';

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
 * method and option, and the guard looks its handler's route (plan and overload gate) up
 * once per request (handler-routes.ts). Plans are kept per controller and handler: a method
 * inherited by two controllers gets each one's class limits and key names.
 */
@Injectable()
export class LimitExplorer implements OnModuleInit {
  /** Every handler's plan and gate: what the guard reads, per request. */
  routes = new HandlerRoutes((controller, handler) =>
    this.compile(controller, handler, handler.name),
  );
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
    /** The overload gates; absent (an explorer built by hand), no handler passes one. */
    @Optional() private readonly overload?: OverloadGates,
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
        if (typeof handler !== 'function' || this.routes.has(metatype, handler)) continue;
        // A provider's method that is no handler the guard runs for (a service's) is left out.
        if (!controllers.has(wrapper) && !isProviderHandler(metatype, handler)) continue;
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
    for (const plan of this.routes.plans()) limits.push(...plan);
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
    const [previousRoutes, previousOverrides] = [this.routes, this.overrides];
    this.routes = previousRoutes.copy();
    this.overrides = overrides;
    try {
      for (const { controller, handler, methodName } of this.handlers) {
        this.compile(controller, handler, methodName, false);
      }
    } catch (error) {
      [this.routes, this.overrides] = [previousRoutes, previousOverrides];
      throw error;
    }
    if (dryRun) [this.routes, this.overrides] = [previousRoutes, previousOverrides];
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

  private compile(
    controller: Function,
    handler: Function,
    methodName: string,
    firstTime = true,
  ): HandlerRoute {
    const limits = this.compileHandler(controller, handler, methodName);
    if (firstTime && limits.length > 0) this.handlers.push({ controller, handler, methodName });
    const plan = limits.length === 0 ? NO_LIMITS : this.planOf(limits);
    const route = { plan, gate: this.overload?.gateFor(controller, handler) };
    this.routes.set(controller, handler, route);
    return route;
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
