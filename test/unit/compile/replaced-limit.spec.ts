import { ConcurrencyLimit, CountLimit, RateLimit } from '../../../src';
import { RateLimitParams } from '../../../src/algorithms/rate-limit/rate-limit.model';
import { describeKeyForm } from '../../../src/keys/key-form';
import { defaultDefinitions } from '../../../src/compile/default-limits';
import { handlerDefinitions, handlerLimits } from '../../../src/compile/handler-definitions';
import { CompiledLimit, compileLimit } from '../../../src/compile/compiled-limit';

/**
 * A decorator named like a default takes what it does not set from it: never an option its
 * own algorithm refuses, or a replacement the user wrote right would fail start-up over an
 * option it does not have.
 */
describe('a replacement inherits from the default it replaces', () => {
  const settle = () => 1;
  const defaults = defaultDefinitions(
    [{ name: 'short', algorithm: 'countLimit', limit: 3, period: 60, settle }],
    'RateLimiterModule',
  );
  const compiled = (controller: new () => object, method: string) => {
    const handler = (controller.prototype as Record<string, object>)[method];
    const handlerName = `${controller.name}.${method}`;
    const { definitions } = handlerDefinitions(defaults, controller, handler, handlerName);
    return definitions.map(
      (definition) => compileLimit(definition, handlerName, '') as CompiledLimit,
    );
  };

  it('of its own algorithm, takes the default’s settle', () => {
    class MeteredController {
      @CountLimit({ name: 'short', limit: 10 })
      complete() {}
    }
    const [limit] = compiled(MeteredController, 'complete');
    expect(limit.settle).toBe(settle);
  });

  it('of an algorithm that cannot settle (a concurrency slot), leaves settle behind', () => {
    class ExportController {
      @ConcurrencyLimit({ name: 'short', max: 2 })
      export() {}
    }
    const [limit] = compiled(ExportController, 'export');
    expect([limit.kind, limit.settle, describeKeyForm(limit.keyForm)]).toEqual([
      'concurrencyLimit',
      undefined,
      'concurrency:~ExportController.export:*', // per client IP, as the default
    ]);
  });
});

/**
 * A live override (the admin's) sizes a bucket the way a replacement does: `burst` in place
 * of the declared `capacity`, or the reverse, not both (which no bucket takes).
 */
describe('a live override of a bucket’s size', () => {
  class ApiController {
    @RateLimit({ name: 'api', rate: 1, capacity: 10 })
    bySize() {}

    @RateLimit({ name: 'search', rate: 1, burst: 10 })
    byTime() {}
  }
  const maxPermits = (method: string, override: Record<string, unknown>) => {
    const handler = (ApiController.prototype as unknown as Record<string, object>)[method];
    const [limit] = handlerLimits([], ApiController, handler, `ApiController.${method}`, {
      overrides: new Map([
        ['api', override],
        ['search', override],
      ]),
      keyPrefix: '',
      shadowByDefault: false,
      unitsChecked: new WeakSet(),
    });
    return ((limit as CompiledLimit).params as RateLimitParams).maxPermits;
  };

  it('takes burst over a declared capacity, and capacity over a declared burst', () => {
    expect(maxPermits('bySize', { burst: 2 })).toBe(2);
    expect(maxPermits('byTime', { capacity: 3 })).toBe(3);
    expect(maxPermits('bySize', { capacity: 4 })).toBe(4);
  });
});
