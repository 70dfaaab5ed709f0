/* Why a key template could not make a key from one request: each is a 400. */

/**
 * A key expression found no value, or an empty string, in the request (every operand of
 * `a ?? b`). The guard answers 400 Bad Request and logs the expression (once per limit); the
 * client is not told how the key is built.
 *
 * @publicApi
 */
export class KeyValueMissingError extends Error {
  override readonly name = 'KeyValueMissingError';

  constructor(readonly expression: string) {
    super(`Missing value for key expression '${expression}'`);
  }
}

/**
 * A key expression found a value that cannot be part of a key (an object, an array, a
 * function, a non-finite number). The guard answers 400 Bad Request naming the expression.
 *
 * @publicApi
 */
export class KeyValueInvalidError extends Error {
  override readonly name = 'KeyValueInvalidError';

  constructor(
    readonly expression: string,
    readonly got: string,
  ) {
    super(`Key expression '${expression}' must be a string or number, got ${got}`);
  }
}

/**
 * A bare name (`#{phone}`) found in more than one of `params`, `query` and `body` with
 * different values: taking either would let a client pick its own key (`?phone=` beside the
 * body's phone). The guard answers 400 Bad Request naming the expression.
 *
 * @publicApi
 */
export class KeyValueConflictError extends Error {
  override readonly name = 'KeyValueConflictError';

  constructor(
    readonly expression: string,
    readonly sources: readonly string[],
  ) {
    super(
      `Key expression '${expression}' has different values in ${sources.join(' and ')}: name one, e.g. '${sources[sources.length - 1]}.${expression}'`,
    );
  }
}
