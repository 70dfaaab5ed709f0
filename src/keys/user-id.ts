/**
 * `resolveUser` returned something that cannot tell one user from another (a plain object
 * would make every user `[object Object]`, one shared key). A bug of the app, not of the
 * client: the guard answers 500 and logs one line naming `resolveUser`.
 */
export class UserIdInvalidError extends Error {
  override readonly name = 'UserIdInvalidError';

  constructor(readonly got: string) {
    super(
      `resolveUser returned ${got}: a USER id must be a string, a number, or an object with its own toString (such as a MongoDB ObjectId)`,
    );
  }
}

/**
 * A user id with a lone UTF-16 surrogate: UTF-8 turns every such id into the same bytes
 * (U+FFFD), so distinct users would share one key. The id may come from the client (a
 * username in a body), so the guard answers 400, as for a template's value.
 */
export class UserIdMalformedError extends Error {
  override readonly name = 'UserIdMalformedError';

  constructor() {
    super('The user id has a lone UTF-16 surrogate: it cannot make a key');
  }
}

/** `String.prototype.isWellFormed` (Node 20), not yet in the compiler's library. */
interface WellFormedCheck {
  isWellFormed(): boolean;
}

function wellFormed(id: string): string {
  if (!(id as unknown as WellFormedCheck).isWellFormed()) throw new UserIdMalformedError();
  return id;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object without its own toString';
  if (typeof value === 'number') return String(value);
  return `a ${typeof value}`;
}

/**
 * The user id a key may hold, from what `resolveUser` returned: undefined, null and '' mean
 * anonymous; a string or a finite number is kept; an object counts when its class defines
 * `toString` (a MongoDB ObjectId) and that gives a non-empty string.
 *
 * @throws UserIdInvalidError for anything else.
 * @throws UserIdMalformedError for an id with a lone UTF-16 surrogate.
 */
export function toUserId(value: unknown): string | number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return wellFormed(value);
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { toString } = value as { toString?: unknown };
    if (typeof toString === 'function' && toString !== Object.prototype.toString) {
      const text: unknown = toString.call(value);
      if (typeof text === 'string' && text !== '') return wellFormed(text);
    }
  }
  throw new UserIdInvalidError(describeValue(value));
}
