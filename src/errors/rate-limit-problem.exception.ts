import { HttpException, HttpStatus } from '@nestjs/common';

/** The problem type of draft-ietf-httpapi-ratelimit-headers for a request over its quota. */
export const QUOTA_EXCEEDED_TYPE = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

/** The `application/problem+json` body (RFC 9457) of a 429 with `problemDetails: true`. */
export interface RateLimitProblemBody {
  type: typeof QUOTA_EXCEEDED_TYPE;
  title: string;
  status: 429;
  /** The names of the limits that denied the request. */
  'violated-policies': string[];
  /** Seconds until the request could be allowed, rounded up. */
  retryAfter: number;
  /** The module's `errorMessage`, when it has one. */
  detail?: string;
}

/**
 * 429 Too Many Requests as a problem document (`problemDetails: true`): the module's filter
 * writes it as `application/problem+json`, which Nest's own exception handling would not.
 *
 * @publicApi
 */
export class RateLimitProblemException extends HttpException {
  constructor(retryAfterSeconds: number, violatedPolicies: readonly string[], detail?: string) {
    const body: RateLimitProblemBody = {
      type: QUOTA_EXCEEDED_TYPE,
      title: 'Request cannot be satisfied as assigned quota has been exceeded',
      status: 429,
      'violated-policies': [...violatedPolicies],
      retryAfter: retryAfterSeconds,
      ...(detail === undefined ? {} : { detail }),
    };
    super(body, HttpStatus.TOO_MANY_REQUESTS);
  }
}
