import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { LimitDefinition } from '../../decorators/limit-definition';
import { limitDecorator } from '../../decorators/limit-metadata.accessor';
import { CountOutcomeInterceptor } from '../../guard/count-outcome.interceptor';

/**
 * A limit decorator that takes `block` and `count`: with `count: 'failures' | 'successes'`
 * it also attaches the interceptor that settles each request's outcome (an invalid value
 * fails start-up when the limit is compiled).
 */
export function stateLimitDecorator(definition: LimitDefinition): ClassDecorator & MethodDecorator {
  const limit = limitDecorator(definition);
  const count = definition.options.count;
  if (count === undefined || count === 'all') return limit;
  return applyDecorators(limit, UseInterceptors(CountOutcomeInterceptor));
}
