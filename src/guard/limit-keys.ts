import {
  BadRequestException,
  ExecutionContext,
  InternalServerErrorException,
  Logger,
} from '@nestjs/common';
import {
  KeyValueConflictError,
  KeyValueInvalidError,
  KeyValueMissingError,
} from '../keys/key-template.evaluator';
import { UserIdInvalidError, UserIdMalformedError } from '../keys/user-id';
import { CompiledLimit, RequestFacts } from './compiled-limit';
import { forContext } from './context-exception';

/**
 * Each limit's key for this request. A value the client sent that cannot make a key is a
 * 400 naming the expression; a user id the app resolved wrongly is a 500 with one log line
 * (no stack: the message says what to fix).
 */
export function keysOf(
  limits: readonly CompiledLimit[],
  facts: RequestFacts,
  context: ExecutionContext,
  logger: Logger,
): string[] {
  const keys: string[] = [];
  for (const limit of limits) {
    try {
      keys.push(limit.key(facts));
    } catch (error) {
      if (
        error instanceof KeyValueMissingError ||
        error instanceof KeyValueInvalidError ||
        error instanceof KeyValueConflictError ||
        error instanceof UserIdMalformedError
      ) {
        throw forContext(context, new BadRequestException(error.message));
      }
      if (error instanceof UserIdInvalidError) {
        logger.error(`${limit.where}: ${error.message}`);
        throw forContext(context, new InternalServerErrorException());
      }
      throw error;
    }
  }
  return keys;
}
