/** Metadata key of the limits declared on a class or method (an array, appended to). */
export const LIMITS_METADATA = Symbol('nestjs-limiter:limits');
/** Metadata key of `@SkipRateLimit()`. */
export const SKIP_METADATA = Symbol('nestjs-limiter:skip');
/** Marks `RateLimitGuard` and its subclasses, to find it among a gateway's guards. */
export const LIMIT_GUARD_MARK = Symbol('nestjs-limiter:guard');
