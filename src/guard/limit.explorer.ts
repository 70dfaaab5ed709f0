import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { isSkipped, readLimits } from '../decorators/limit-metadata.accessor';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { CompiledLimit, compileLimit } from './compiled-limit';

const NO_LIMITS: readonly CompiledLimit[] = Object.freeze([]);

/**
 * Compiles every decorated handler once, when the application initialises: options are
 * validated and key templates parsed there, so a mistake fails start-up naming the class,
 * method and option, and the guard does one map lookup per request.
 */
@Injectable()
export class LimitExplorer implements OnModuleInit {
  private readonly plans = new Map<Function, readonly CompiledLimit[]>();

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
        if (typeof handler === 'function' && !this.plans.has(handler)) {
          this.compile(metatype, handler, name);
        }
      }
    }
  }

  /** The compiled limits of a handler; one that was not discovered is compiled on first use. */
  limitsFor(controller: Function, handler: Function): readonly CompiledLimit[] {
    return this.plans.get(handler) ?? this.compile(controller, handler, handler.name);
  }

  private compile(
    controller: Function,
    handler: Function,
    methodName: string,
  ): readonly CompiledLimit[] {
    const definitions = readLimits(controller, handler);
    const plan =
      definitions.length === 0 || isSkipped(controller, handler)
        ? NO_LIMITS
        : Object.freeze(
            definitions.map((definition) =>
              Object.freeze(
                compileLimit(
                  definition,
                  `${controller.name}.${methodName}`,
                  this.options.keyPrefix ?? '',
                ),
              ),
            ),
          );
    this.plans.set(handler, plan);
    return plan;
  }
}
