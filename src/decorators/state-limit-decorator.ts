import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { LimitDefinition } from '../contracts/limit-definition';
import { limitDecorator } from './limit-metadata.accessor';
import { CountOutcomeInterceptor } from '../guard/count-outcome.interceptor';

/**
 * A limit decorator that takes `block`, `count` and `settle`: with `count: 'failures' |
 * 'successes'` or a `settle`, it also attaches the interceptor that settles each request
 * once its handler has finished (an invalid value fails start-up when the limit is compiled).
 */
export function stateLimitDecorator(definition: LimitDefinition): ClassDecorator & MethodDecorator {
  const limit = limitDecorator(definition);
  const { count, settle } = definition.options;
  if ((count === undefined || count === 'all') && settle === undefined) return limit;
  return applyDecorators(limit, UseInterceptors(CountOutcomeInterceptor));
}
