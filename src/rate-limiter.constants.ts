/** Metadata key of the limits declared on a class or method (an array, appended to). */
export const LIMITS_METADATA = Symbol('nestjs-limiter:limits');
/** Metadata key of `@SkipRateLimit()`. */
export const SKIP_METADATA = Symbol('nestjs-limiter:skip');
/**
 * Marks a controller the `deny` networks do not refuse: the admin page's, which answers to
 * its own guards (a deny list that covers the admin must not lock out its undo). The `allow`
 * networks still go unlimited there.
 */
export const OUTSIDE_DENY_LIST = Symbol('nestjs-limiter:outside-deny-list');
/** Metadata key of `@AdaptiveConcurrencyLimit` on a class or method (its options object). */
export const OVERLOAD_METADATA = Symbol('nestjs-limiter:overload');

/** The metadata key of `@UpstreamLimit`. */
export const UPSTREAM_LIMIT_METADATA = Symbol('nestjs-limiter:upstream-limit');
