/** Metadata key of the limits declared on a class or method (an array, appended to). */
export const LIMITS_METADATA = Symbol('nestjs-limiter:limits');
/** Metadata key of `@SkipRateLimit()`. */
export const SKIP_METADATA = Symbol('nestjs-limiter:skip');
