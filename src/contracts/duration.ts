/**
 * A time written with its unit: a whole or decimal number, then `ms`, `s`, `m`, `h` or `d`
 * (`'500ms'`, `'1.5s'`, `'30s'`, `'1m'`, `'1h'`, `'1d'`).
 *
 * @publicApi
 */
export type Duration = `${number}ms` | `${number}s` | `${number}m` | `${number}h` | `${number}d`;

/**
 * A time option: seconds as a number (fractions allowed), or a {@link Duration} string.
 *
 * @publicApi
 */
export type Seconds = number | Duration;
