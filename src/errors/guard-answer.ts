import { HttpException } from '@nestjs/common';

/**
 * An answer a step of the guard gives (a refusal, a 400 for a key, a 503): the HTTP
 * exception, with a denial's retry time. The guard's steps throw it as is, knowing nothing
 * of transports; the guard throws it once (context/context-exception.ts's `answerFor`), as the
 * request's transport carries it.
 */
export class GuardAnswer extends Error {
  constructor(
    readonly exception: HttpException,
    readonly retryAfterMs?: number,
  ) {
    super(exception.message);
  }
}
