/**
 * An upstream call could not start within its upstream's `timeout`: the budget is taken (or
 * the upstream asked for a pause) for longer than the caller would wait. Nothing was sent.
 * `retryAfterMs` is how long until a call could start, as far as this server knows.
 *
 * @publicApi
 */
export class UpstreamBusyError extends Error {
  override readonly name = 'UpstreamBusyError';

  constructor(
    /** The upstream's name. */
    readonly upstream: string,
    /** Milliseconds until a call could start, as far as this server knows. */
    readonly retryAfterMs: number,
  ) {
    super(
      `upstream '${upstream}': no slot within its timeout; retry in ${Math.ceil(retryAfterMs)} ms`,
    );
  }
}
