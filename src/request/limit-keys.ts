import { BadRequestException, InternalServerErrorException, Logger } from '@nestjs/common';
import {
  KeyValueConflictError,
  KeyValueInvalidError,
  KeyValueMissingError,
} from '../keys/key-template.evaluator';
import { UserIdInvalidError, UserIdMalformedError } from '../keys/user-id';
import { CompiledLimit } from '../compile/compiled-limit';
import { RequestFacts } from '../keys/compile-key';
import { GuardAnswer } from '../errors/guard-answer';

/**
 * What a client is told when a value its limit's key needs is missing. The expression stays
 * in the log: it tells a stranger how keys are built (and a missing `user?.id` is often an
 * unauthenticated request, which the app's own 401 should answer, not us).
 */
const MISSING_KEY_VALUE = 'Missing a value this request is rate-limited by';

/**
 * Limits whose missing key value was logged, once each, not once per request: by their key
 * function, which a limit compiled for each request (options that are functions of it)
 * shares with every other run of it.
 */
const loggedMissing = new WeakSet<CompiledLimit['key']>();

/**
 * Each limit's key for this request. A value the client sent that cannot make a key is a
 * 400: an invalid or conflicting one names the expression (the client sent it), a missing
 * one does not (logged once per limit instead). A user id the app resolved wrongly is a
 * 500 with one log line (no stack: the message says what to fix).
 */
export function keysOf(
  limits: readonly CompiledLimit[],
  facts: RequestFacts,
  logger: Logger,
): string[] {
  const keys: string[] = [];
  for (const limit of limits) {
    try {
      keys.push(limit.key(facts));
    } catch (error) {
      // 400 for the client's value, 500 for the app's; anything else is no key's to answer.
      if (error instanceof KeyValueMissingError) {
        if (!loggedMissing.has(limit.key)) {
          loggedMissing.add(limit.key);
          logger.warn(`${limit.where}: ${error.message}: answered 400 (logged once per limit)`);
        }
        throw new GuardAnswer(new BadRequestException(MISSING_KEY_VALUE));
      }
      if (
        error instanceof KeyValueInvalidError ||
        error instanceof KeyValueConflictError ||
        error instanceof UserIdMalformedError
      ) {
        throw new GuardAnswer(new BadRequestException(error.message));
      }
      if (error instanceof UserIdInvalidError) {
        logger.error(`${limit.where}: ${error.message}`);
        throw new GuardAnswer(new InternalServerErrorException());
      }
      throw error;
    }
  }
  return keys;
}
