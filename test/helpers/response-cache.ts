import { CallHandler, ExecutionContext } from '@nestjs/common';
import { Observable, of, tap } from 'rxjs';

/**
 * What an app's cache interceptor does (as @nestjs/cache-manager's CacheInterceptor): an
 * answer seen before under `key` comes back from `answers`, without calling `next.handle()`.
 */
export function answerFromCache(
  answers: Map<string, unknown>,
  key: string,
  next: CallHandler,
): Observable<unknown> {
  if (answers.has(key)) return of(answers.get(key));
  return next.handle().pipe(tap((answer) => answers.set(key, answer)));
}

/** An HTTP request's cache key: its method and URL. */
export function httpCacheKey(context: ExecutionContext): string {
  const request = context.switchToHttp().getRequest();
  return `${request.method} ${request.url}`;
}
