import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { UpstreamLimitMetadata } from '../decorators/upstream-limit.decorator';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import { RateLimiterFactory } from '../limiter/rate-limiter.factory';
import { UPSTREAM_LIMIT_METADATA } from '../rate-limiter.constants';
import { refuseUnknownOptions } from '../algorithms/option-rules';

const OPTION_NAMES = new Set(['tenant', 'weight']);

/**
 * Wraps every method marked `@UpstreamLimit` on the app's providers and controllers, once,
 * when the module starts: each call of it goes through its upstream's `call`. A mistake (an
 * upstream not declared, a wrong option) fails start-up naming the class and the method.
 */
@Injectable()
export class UpstreamMethods implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly factory: RateLimiterFactory,
  ) {}

  onModuleInit(): void {
    const done = new Set<object>();
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    for (const { instance } of wrappers) {
      if (!instance || typeof instance !== 'object' || done.has(instance)) continue;
      done.add(instance);
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      if (!prototype) continue;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const method = prototype[name];
        if (typeof method !== 'function') continue;
        const metadata = Reflect.getMetadata(UPSTREAM_LIMIT_METADATA, method) as
          UpstreamLimitMetadata | undefined;
        if (metadata) {
          this.wrap(instance as Record<string, unknown>, name, method as never, metadata);
        }
      }
    }
  }

  private wrap(
    instance: Record<string, unknown>,
    name: string,
    method: (...args: unknown[]) => unknown,
    { upstream: upstreamName, options }: UpstreamLimitMetadata,
  ): void {
    const where = `${instance.constructor.name}.${name} @UpstreamLimit`;
    let upstream;
    try {
      upstream = this.factory.upstream(upstreamName);
    } catch (error) {
      throw new LimiterConfigError(`${where}: ${(error as Error).message}`);
    }
    refuseUnknownOptions(options, OPTION_NAMES, where);
    const { tenant, weight } = options;
    if (tenant !== undefined && typeof tenant !== 'function') {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(where, 'tenant', tenant, 'a function of the arguments'),
      );
    }
    if (weight !== undefined && !(typeof weight === 'number' && weight > 0 && weight < Infinity)) {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(where, 'weight', weight, 'a finite number > 0'),
      );
    }
    instance[name] = function (this: unknown, ...args: unknown[]) {
      return upstream.call(() => method.apply(this, args), {
        tenant: tenant?.(...args),
        weight,
      });
    };
  }
}
