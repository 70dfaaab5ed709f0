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
 */
export function toUserId(value: unknown): string | number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { toString } = value as { toString?: unknown };
    if (typeof toString === 'function' && toString !== Object.prototype.toString) {
      const text: unknown = toString.call(value);
      if (typeof text === 'string' && text !== '') return text;
    }
  }
  throw new UserIdInvalidError(describeValue(value));
}
