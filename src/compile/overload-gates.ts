import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { isSkipped, readOverload } from '../decorators/limit-metadata.accessor';
import type { OverloadDeclaration } from '../decorators/adaptive-concurrency-limit.decorator';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { OUTSIDE_DENY_LIST } from '../rate-limiter.constants';
import { OverloadGate, OverloadSnapshot } from '../overload/overload-gate';
import { overloadSettings } from '../overload/overload.options';
import { priorityOf, PriorityOf } from '../overload/overload-priority';
import { OverloadMetrics } from '../metrics/overload-metrics';
import { isConnectionHandler } from './connection-handler';

/** The gate a handler's requests pass, and how it reads their class. */
export interface HandlerGate {
  gate: OverloadGate;
  priorityOf: PriorityOf;
  /** Where it is declared, for events: `@AdaptiveConcurrencyLimit on Cls.m`. */
  where: string;
}

/**
 * Which overload gate each handler passes: its method's `@AdaptiveConcurrencyLimit`, else
 * its class's (one gate for the class's handlers together), else the module's `overload`
 * (one gate for the whole process). Every declaration is checked when the application
 * initialises, so a wrong option fails start-up naming it. `@SkipRateLimit()` without names
 * skips the module's gate too; the admin page's routes never pass it (they must answer
 * while the server sheds).
 */
@Injectable()
export class OverloadGates implements OnModuleInit {
  private readonly moduleGate?: HandlerGate;
  private readonly declared = new WeakMap<OverloadDeclaration, HandlerGate>();
  private readonly gates: HandlerGate[] = [];
  private readonly byHandler = new Map<Function, Map<Function, HandlerGate | null>>();
  /** Looked for with the first gate: an app without one never asks for OpenTelemetry. */
  metrics?: OverloadMetrics;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(RATE_LIMITER_OPTIONS) private readonly options: RateLimiterModuleOptions,
  ) {
    if (options.overload !== undefined) {
      const settings = overloadSettings(options.overload, 'RateLimiterModule', 'overload.');
      this.moduleGate = this.add('overload', settings, 'RateLimiterModule overload');
    }
  }

  onModuleInit(): void {
    const controllers = new Set(this.discovery.getControllers());
    for (const wrapper of [...controllers, ...this.discovery.getProviders()]) {
      const { metatype } = wrapper;
      if (typeof metatype !== 'function' || !metatype.prototype || wrapper.isNotMetatype) continue;
      for (const name of this.scanner.getAllMethodNames(metatype.prototype)) {
        const handler = metatype.prototype[name];
        if (typeof handler === 'function') this.gateFor(metatype, handler);
      }
    }
    this.metrics?.follow();
  }

  /** Every gate's state: the metrics' and the admin page's reading. */
  snapshots(): OverloadSnapshot[] {
    return this.gates.map((entry) => entry.gate.snapshot());
  }

  /** The handler's gate; undefined where none applies. */
  gateFor(controller: Function, handler: Function): HandlerGate | undefined {
    let known = this.byHandler.get(controller);
    if (!known) this.byHandler.set(controller, (known = new Map()));
    let found = known.get(handler);
    if (found === undefined)
      known.set(handler, (found = this.resolve(controller, handler) ?? null));
    return found ?? undefined;
  }

  private resolve(controller: Function, handler: Function): HandlerGate | undefined {
    if (isConnectionHandler(controller, handler.name)) return undefined;
    const read = readOverload(controller, handler);
    if (!read) {
      if (isSkipped(controller, handler) || Reflect.getMetadata(OUTSIDE_DENY_LIST, controller)) {
        return undefined;
      }
      return this.moduleGate;
    }
    const existing = this.declared.get(read.declaration);
    if (existing) return existing;
    const scope = read.onClass ? controller.name : `${controller.name}.${handler.name}`;
    const where = `@AdaptiveConcurrencyLimit on ${scope}`;
    const entry = this.add(scope, overloadSettings(read.declaration.options, where), where);
    this.declared.set(read.declaration, entry);
    return entry;
  }

  private add(name: string, settings: ReturnType<typeof overloadSettings>, where: string) {
    const entry: HandlerGate = {
      gate: new OverloadGate(name, settings),
      priorityOf: priorityOf(settings.priority),
      where,
    };
    this.gates.push(entry);
    if (this.gates.length === 1) {
      this.metrics = OverloadMetrics.fromOption(this.options.metrics, () => this.snapshots());
    }
    return entry;
  }
}
