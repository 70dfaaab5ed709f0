import { Logger } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { isSkipped, readLimits } from '../decorators/limit-metadata.accessor';
import { limiterMessages } from '../rate-limiter.messages';

/**
 * Metadata that makes a provider's methods handlers a guard runs on, by value: the packages
 * are optional. A gateway (`@nestjs/websockets`), a resolver class or method
 * (`@nestjs/graphql`), and Nest 11's mark of an entry provider (set by `@Resolver`).
 */
const HANDLER_CLASS_METADATA = [
  'websockets:is_gateway',
  'graphql:resolver_type',
  '__entryProvider__',
];
const HANDLER_METHOD_METADATA = 'graphql:resolver_type';

/** A provider whose methods no transport calls as handlers (a service, a repository). */
export function isPlainProvider(metatype: unknown): boolean {
  return (
    typeof metatype === 'function' &&
    !HANDLER_CLASS_METADATA.some((key) => Reflect.hasMetadata(key, metatype))
  );
}

/**
 * A limit decorator on a provider method that no transport calls as a handler (a service,
 * a repository) does nothing: no guard runs when other code calls the method. Logs one
 * warning per such method, naming its class and method, and one per class whose own
 * decorator would apply to its methods.
 */
export function warnLimitsOnProviders(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  logger: Logger,
): void {
  const warned = new Set<string>(); // a provider listed by two modules is one class
  for (const { metatype, instance } of discovery.getProviders()) {
    if (!instance || typeof metatype !== 'function' || !metatype.prototype) continue;
    if (!isPlainProvider(metatype)) continue;
    const prototype = Object.getPrototypeOf(instance);
    if (!prototype || warned.has(metatype.name)) continue;
    warned.add(metatype.name);
    const classLimits = readLimits(metatype, {}).length > 0;
    if (classLimits && !isSkipped(metatype, {})) {
      logger.warn(limiterMessages.limitsOnProvider(metatype.name));
    }
    for (const name of scanner.getAllMethodNames(prototype)) {
      const method = prototype[name];
      if (typeof method !== 'function' || Reflect.hasMetadata(HANDLER_METHOD_METADATA, method)) {
        continue;
      }
      // The class's own limits were named once above; this names the method's own.
      if (readLimits({}, method).length === 0 || isSkipped(metatype, method)) continue;
      logger.warn(limiterMessages.limitsOnProvider(`${metatype.name}.${name}`));
    }
  }
}
