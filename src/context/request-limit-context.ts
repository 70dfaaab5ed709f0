import { ExecutionContext } from '@nestjs/common';
import { LimitContext } from '../contracts/limit-context';

/**
 * The context of one request, built only for a plan that needs it. A class, not an object
 * literal with getters: it is made on every request of such a handler, and reads nothing
 * until asked (the IP runs the trust-proxy rules, the handler name builds a string).
 */
export class RequestLimitContext implements LimitContext {
  constructor(
    readonly context: ExecutionContext,
    readonly request: any,
    private readonly facts: { readonly ip: string },
  ) {}

  get user(): any {
    // Fastify: Nest middleware sets the user on the raw Node request.
    return this.request?.user ?? this.request?.raw?.user;
  }

  get ip(): string {
    return this.facts.ip;
  }

  get handler(): string {
    return `${this.context.getClass().name}.${this.context.getHandler().name}`;
  }
}
