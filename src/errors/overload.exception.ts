import { HttpException, HttpStatus } from '@nestjs/common';

const OVERLOADED = 'Service Unavailable: the server is overloaded';

/** The JSON body of a 503 from the overload guard. */
export interface OverloadBody {
  statusCode: 503;
  message: string;
  /** Seconds after which the request may be tried again, at least 1. */
  retryAfter: number;
}

/** The `application/problem+json` body (RFC 9457) of that 503 with `problemDetails: true`. */
export interface OverloadProblemBody {
  type: 'about:blank';
  title: 'Service Unavailable';
  status: 503;
  detail: string;
  retryAfter: number;
}

/**
 * 503 Service Unavailable from the overload guard: the server's state, not the client's
 * quota (that is 429), so any client may be refused, and retrying later may pass.
 *
 * @publicApi
 */
export class OverloadException extends HttpException {
  constructor(retryAfterSeconds = 1, message = OVERLOADED) {
    const body: OverloadBody = { statusCode: 503, message, retryAfter: retryAfterSeconds };
    super(body, HttpStatus.SERVICE_UNAVAILABLE);
  }
}

/**
 * That 503 as a problem document (`problemDetails: true`), written as
 * `application/problem+json` by the module's filter.
 *
 * @publicApi
 */
export class OverloadProblemException extends HttpException {
  constructor(retryAfterSeconds = 1) {
    const body: OverloadProblemBody = {
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      detail: OVERLOADED,
      retryAfter: retryAfterSeconds,
    };
    super(body, HttpStatus.SERVICE_UNAVAILABLE);
  }
}
