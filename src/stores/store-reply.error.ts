/**
 * Redis answered one decision with an error (`WRONGTYPE`, `OOM`...): the other decisions of
 * its batch were still made. The message is Redis's, starting with the error code.
 */
export class StoreReplyError extends Error {
  override readonly name = 'StoreReplyError';
}
