import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { RateLimitProblemException } from '../errors/rate-limit-problem.exception';
import { OverloadProblemException } from '../errors/overload.exception';
import { setHeader } from './rate-limit-headers';

/**
 * Writes a {@link RateLimitProblemException} (and the overload guard's 503 problem) as `application/problem+json`: Nest's exception
 * handler would reset any error's content type to `application/json`. It catches nothing else.
 */
@Catch(RateLimitProblemException, OverloadProblemException)
export class RateLimitProblemFilter implements ExceptionFilter {
  catch(
    exception: RateLimitProblemException | OverloadProblemException,
    host: ArgumentsHost,
  ): void {
    const response = host.switchToHttp().getResponse();
    setHeader(response, 'Content-Type', 'application/problem+json');
    const body = JSON.stringify(exception.getResponse());
    // Fastify's reply has `code`; Express's response `status`.
    if (typeof response.code === 'function') response.code(exception.getStatus()).send(body);
    else response.status(exception.getStatus()).send(body);
  }
}
