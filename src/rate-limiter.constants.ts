/** Metadata key of the limits declared on a class or method (an array, appended to). */
export const LIMITS_METADATA = Symbol('nestjs-limiter:limits');
/** Metadata key of `@SkipRateLimit()`. */
export const SKIP_METADATA = Symbol('nestjs-limiter:skip');
/**
 * Marks a controller the `allow` and `deny` networks do not govern: the admin page's, which
 * answers to its own guards (a deny list that covers the admin must not lock out its undo).
 */
export const OUTSIDE_NETWORK_LISTS = Symbol('nestjs-limiter:outside-network-lists');
