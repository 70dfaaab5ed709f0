import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { LimitType } from '../contracts/limit-type.enum';
import { defaultDefinitions } from '../compile/default-limits';
import { handlerDefinitions } from '../compile/handler-definitions';
import { limitTypeOf } from '../keys/compile-key';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { limiterMessages } from '../rate-limiter.messages';
import { RateLimiterModuleOptions } from '../rate-limiter.options';

/** `@nestjs/microservices`' PATTERN_METADATA, by value: the package is optional. */
const PATTERN_METADATA = 'microservices:pattern';

/**
 * A USER limit on a microservice handler (`@MessagePattern`, `@EventPattern`,
 * `@GrpcMethod`) finds its user, without `resolveUser`, in the transport's context and then
 * in the message itself (`user.id`): a caller writes its own message, so it picks its own
 * USER key and a limit per user limits nothing. An app that verifies its callers passes
 * `resolveUser`; one that does not is told so at start-up, once, naming the handlers.
 */
@Injectable()
export class RpcUserLimitsCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('RateLimiter');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(RATE_LIMITER_OPTIONS) private readonly options: RateLimiterModuleOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.resolveUser) return;
    const defaults = defaultDefinitions(this.options.defaults, 'RateLimiterModule');
    const handlers = new Set<string>(); // a controller listed by two modules is one
    for (const { metatype, instance } of this.discovery.getControllers()) {
      if (!instance || typeof metatype !== 'function') continue;
      const prototype = Object.getPrototypeOf(instance);
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function') continue;
        if (Reflect.getMetadata(PATTERN_METADATA, handler) === undefined) continue;
        const { definitions } = handlerDefinitions(defaults, metatype, handler, name);
        if (definitions.some(({ options }) => limitTypeOf(options) === LimitType.USER)) {
          handlers.add(`${metatype.name}.${name}`);
        }
      }
    }
    if (handlers.size > 0) this.logger.warn(limiterMessages.rpcUserFromMessage([...handlers]));
  }
}
