import { CanActivate, ExecutionContext } from '@nestjs/common';
import { setHeader } from '../request/rate-limit-headers';

/**
 * What every answer of the admin page carries: its answers name keys, IPs and user ids (no
 * cache keeps them), and none may be read as another type than it says.
 */
const ADMIN_RESPONSE_HEADERS: readonly [string, string][] = [
  ['Cache-Control', 'no-store'],
  ['X-Content-Type-Options', 'nosniff'],
];

/**
 * Sets {@link ADMIN_RESPONSE_HEADERS} on every admin answer. A guard, the first of the
 * admin's: it runs before the app's guards and before anything can fail, so a refusal
 * (403), an error (400, 503) and an answer (200, 204) carry them alike.
 */
export class AdminResponseHeaders implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const response = context.switchToHttp().getResponse();
    for (const [name, value] of ADMIN_RESPONSE_HEADERS) setHeader(response, name, value);
    return true;
  }
}
