/**
 * The decisions of one request's limits, all or nothing: passed with each of
 * them to the store, which decides them together where it can (one engine script on a
 * standalone or Sentinel Redis, or on the one Cluster node that serves every key; one
 * synchronous run in memory) and then undoes, inside that run, what the allowed ones took
 * when any is denied. Where it could not (a Cluster whose nodes share the keys; members that
 * did not arrive together), the caller gives back what was taken (the limits' refunds). A member a store answers denied locally (its
 * denial cache) denies the group before anything is sent: the others are withdrawn.
 */
export class DecisionGroup {
  /**
   * Keys of allowed members whose permits the store already undid, because the group was
   * decided together and another member was denied, or never took, because the group was
   * denied before they were sent: nothing is left to give back for them.
   */
  readonly undone = new Set<string>();

  /** Set when a member was found denied without asking the backend: send no other member. */
  deniedLocally = false;

  constructor(readonly size: number) {}
}
