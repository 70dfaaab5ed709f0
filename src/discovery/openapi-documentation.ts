import { Inject, Injectable } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { defaultDefinitions } from '../compile/default-limits';
import { handlerDefinitions, NamedDefinitions } from '../compile/handler-definitions';
import { optionalPackage } from '../optional-package';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { bodyOf, defaultStatusOf, headersOf, policyOf } from './openapi-responses';

type MethodDecorator = (target: object, key: string, descriptor: PropertyDescriptor) => unknown;

interface MetadataKeys {
  API_RESPONSE: string;
  API_EXTENSION: string;
}

interface Swagger {
  ApiResponse(options: Record<string, unknown>): MethodDecorator;
  DECORATORS?: MetadataKeys;
}

/**
 * The keys @nestjs/swagger keeps responses and extensions under: the same from 7 to 11, and
 * exported only from 11.4.4 on (earlier versions keep them in a file their `exports` field may
 * hide), so they are spelt here for those.
 */
const SWAGGER_KEYS: MetadataKeys = {
  API_RESPONSE: 'swagger/apiResponse',
  API_EXTENSION: 'swagger/apiExtension',
};

/** The extension that lists a route's limits. */
const RATE_LIMIT_EXTENSION = 'x-ratelimit';

/** Handlers this module documented: their 429 is ours to write again (another app, a test). */
const documentedByUs = new WeakSet<Function>();

/**
 * With `@nestjs/swagger` installed, every limited route documents its 429 (body, `Retry-After`
 * and the rate-limit headers the module sends) and lists its limits in `x-ratelimit`, with no
 * code in the app; routes without limits are left as they are. It works while the providers
 * are built, as @nestjs/swagger's own decorators do when classes load: `createDocument` is
 * often called before `app.init()`. A 429 the app documented itself is kept.
 */
@Injectable()
export class OpenApiDocumentation {
  constructor(
    discovery: DiscoveryService,
    scanner: MetadataScanner,
    @Inject(RATE_LIMITER_OPTIONS) options: RateLimiterModuleOptions,
  ) {
    const swagger = optionalPackage<Swagger>('@nestjs/swagger');
    if (!swagger?.ApiResponse) return;
    const defaults = safely(() => defaultDefinitions(options.defaults, 'RateLimiterModule'));
    if (!defaults) return; // start-up fails on them, naming the mistake
    for (const wrapper of discovery.getControllers()) {
      const type = wrapper.metatype as Function | undefined;
      if (typeof type !== 'function' || !type.prototype) continue;
      for (const name of scanner.getAllMethodNames(type.prototype)) {
        const handler = type.prototype[name] as unknown;
        if (typeof handler !== 'function' || !Reflect.hasMetadata(PATH_METADATA, handler)) continue;
        const declared = safely(() =>
          handlerDefinitions(defaults, type, handler, `${type.name}.${name}`),
        );
        if (declared && declared.definitions.length > 0) {
          document(swagger, type.prototype, name, declared, options);
        }
      }
    }
  }
}

/** Undefined where the limits are wrong: compiling them fails start-up with the message. */
function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function document(
  swagger: Swagger,
  prototype: object,
  name: string,
  { definitions, names }: NamedDefinitions,
  options: RateLimiterModuleOptions,
): void {
  const handler = (prototype as Record<string, Function>)[name];
  const descriptor = { value: handler, writable: true, enumerable: false, configurable: true };
  const { API_RESPONSE, API_EXTENSION } = swagger.DECORATORS ?? SWAGGER_KEYS;
  const responses = Reflect.getMetadata(API_RESPONSE, handler) as
    Record<string, unknown> | undefined;
  const ours = documentedByUs.has(handler);
  if (!responses) {
    // The route's own response, which @nestjs/swagger infers only while a route declares none.
    swagger.ApiResponse({ status: defaultStatusOf(handler), description: '' })(
      prototype,
      name,
      descriptor,
    );
  }
  if (ours || !responses?.['429']) {
    if (ours) delete (Reflect.getMetadata(API_RESPONSE, handler) as Record<string, unknown>)['429'];
    const problem = options.problemDetails ?? false;
    swagger.ApiResponse({
      status: 429,
      description: 'Too Many Requests: a rate limit of this route denied the request.',
      headers: headersOf(options.headers ?? 'legacy'),
      schema: bodyOf(problem),
    })(prototype, name, descriptor);
  }
  const extensions = Reflect.getMetadata(API_EXTENSION, handler) as
    Record<string, unknown> | undefined;
  if (ours || extensions?.[RATE_LIMIT_EXTENSION] === undefined) {
    const shadow = options.shadow ?? false;
    const policies = definitions.map((definition, i) => policyOf(definition, names[i], shadow));
    Reflect.defineMetadata(
      API_EXTENSION,
      { ...extensions, [RATE_LIMIT_EXTENSION]: policies },
      handler,
    );
  }
  documentedByUs.add(handler);
}
