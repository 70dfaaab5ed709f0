/**
 * The decisions of one request's limits, all or nothing (DESIGN §9): passed with each of
 * them to the store, which decides them together where it can (one engine script on a
 * standalone or Sentinel Redis, one synchronous run in memory) and then undoes, inside that
 * run, what the allowed ones took when any is denied. Where it could not (a Cluster, whose
 * keys live in different slots; an entry answered from the denial cache; members that did
 * not arrive together), the caller gives back what was taken (the limits' refunds).
 */
export class DecisionGroup {
  /**
   * Keys of allowed members whose permits the store already undid, because the group was
   * decided together and another member was denied: nothing is left to give back for them.
   */
  readonly undone = new Set<string>();

  constructor(readonly size: number) {}
}
