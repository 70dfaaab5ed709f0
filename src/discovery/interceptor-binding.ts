import { Injectable } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { ApplicationConfig, DiscoveryService, MetadataScanner } from '@nestjs/core';
import { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { LimitExplorer } from '../compile/limit.explorer';
import { isRateLimitInterceptor, RateLimitInterceptor } from '../request/rate-limit.interceptor';
import { putFirstAmongGlobalInterceptors } from './first-global-interceptor';
import { isConnectionHandler } from '../compile/connection-handler';
import { OverloadGates } from '../compile/overload-gates';
import { isProviderHandler } from '../compile/provider-handler';

/**
 * Binds RateLimitInterceptor to exactly the handlers whose limits have work after the guard
 * (a USER key that may wait for the app's auth, a concurrency slot or an overload slot to
 * give back, a `count` mode or `settle`, module defaults included), so every other request runs through no
 * interceptor of ours: Nest builds no interceptor chain for a handler that has none. The
 * decorators stay metadata only.
 *
 * It works while the providers are built: Nest reads a handler's interceptors when it
 * builds the handler's route, resolver or gateway context, in `app.init()` before any
 * `onModuleInit`. It binds the instance, not the class: Nest resolves bound classes from
 * the module's injectables, collected before any provider is built.
 *
 * Where: on the method, first of the method's interceptors; on the class, first of them,
 * when the class has interceptors of its own, since Nest runs a class's interceptors before
 * its methods' and a `CacheInterceptor` there must not answer before a deferred USER limit
 * is decided (the class's other handlers then pass through it too, for a WeakMap lookup).
 * Where the user bound it already, nothing is added: one instance decides, once. The app's
 * global interceptors run before all these, so ours also goes first among them when the app
 * has any (first-global-interceptor.ts).
 */
@Injectable()
export class InterceptorBinding {
  constructor(
    discovery: DiscoveryService,
    scanner: MetadataScanner,
    explorer: LimitExplorer,
    interceptor: RateLimitInterceptor,
    // Nest provides the app's configuration to every module, as @nestjs/graphql injects it.
    config: ApplicationConfig,
    overload: OverloadGates,
  ) {
    let needed = false;
    const controllers = discovery.getControllers();
    for (const wrapper of [...controllers, ...discovery.getProviders()]) {
      const type = classOf(wrapper);
      if (!type) continue;
      const isController = controllers.includes(wrapper);
      const needing = scanner
        .getAllMethodNames(type.prototype)
        .map((name) => ({ name, method: type.prototype[name] as unknown }))
        .filter(
          ({ name, method }): boolean =>
            typeof method === 'function' &&
            (isController || isProviderHandler(type, method)) &&
            // No interceptor runs for a connection: its limits are decided at once.
            !isConnectionHandler(type, name) &&
            (explorer.needsAfterHandler(type, method, name) ||
              overload.gateFor(type, method as Function) !== undefined),
        )
        .map(({ method }) => method as Function);
      if (needing.length === 0) continue;
      bind(interceptor, type, needing);
      needed = true;
    }
    if (needed) putFirstAmongGlobalInterceptors(config, interceptor);
  }
}

/** The class of a provider Nest builds from one; none for values and factories. */
function classOf(wrapper: InstanceWrapper): Function | undefined {
  const { metatype } = wrapper;
  if (wrapper.isNotMetatype || typeof metatype !== 'function' || !metatype.prototype) return;
  return metatype;
}

function bind(interceptor: RateLimitInterceptor, type: Function, methods: Function[]): void {
  const onClass = interceptorsOf(type);
  if (onClass.some(isRateLimitInterceptor)) return;
  if (onClass.length > 0) return prepend(interceptor, type, onClass);
  for (const method of methods) {
    const onMethod = interceptorsOf(method);
    if (!onMethod.some(isRateLimitInterceptor)) prepend(interceptor, method, onMethod);
  }
}

function interceptorsOf(target: Function): unknown[] {
  return (Reflect.getMetadata(INTERCEPTORS_METADATA, target) as unknown[] | undefined) ?? [];
}

/** Ours first, then what was there (inherited included: the class's own list replaces it). */
function prepend(interceptor: RateLimitInterceptor, target: Function, existing: unknown[]) {
  Reflect.defineMetadata(INTERCEPTORS_METADATA, [interceptor, ...existing], target);
}
